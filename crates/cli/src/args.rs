//! The command line, read with [`lexopt`]: the words (the command, a query, paths, `CTX:GIB`
//! readings) and fitcard's flags.

use fitcard_estimator::inputs::quote;

/// Every flag fitcard reads; `--file` and `--for` take a value (`--file PATH`, `--for=ctx`).
const FLAGS: [&str; 6] = ["--json", "--file", "--for", "--svg", "--how", "--offline"];

/// The command line, parsed.
#[derive(Debug, Default, PartialEq)]
pub struct Cli {
    /// The command and what follows it, flags left out, in order.
    pub words: Vec<String>,
    /// `--json`: the answer as JSON.
    pub json: bool,
    /// `--file PATH` (`estimate`): a local GGUF file or checkpoint folder; empty when the path
    /// is missing.
    pub file: Option<String>,
    /// `--for NAME` (`solve`): the input to solve for.
    pub target: Option<String>,
    /// `--svg` (`frontier`): the chart instead of the table.
    pub svg: bool,
    /// `--how` (`measure`): the measuring loop instead of a fit.
    pub how: bool,
    /// `--offline`: a Hub repo the catalog lacks is read from the cache only.
    pub offline: bool,
}

impl Cli {
    /// The process's arguments; one that is not UTF-8 is refused by its position.
    pub fn from_env() -> Result<Cli, String> {
        Cli::parse(utf8(std::env::args_os().skip(1))?)
    }

    /// Parse `args` (the program's name left out). A word that starts with `-` but is not one of
    /// [`FLAGS`] (a query, a path, a reading, `--`) stays a word, for the command to judge.
    pub fn parse(args: Vec<String>) -> Result<Cli, String> {
        use lexopt::prelude::*;
        let mut cli = Cli::default();
        let mut p = lexopt::Parser::from_args(args);
        loop {
            if let Some(word) = next_word(&mut p) {
                cli.words.push(word);
                continue;
            }
            let Some(arg) = p.next().map_err(|e| e.to_string())? else {
                return Ok(cli);
            };
            match arg {
                Long("json") => cli.json = true,
                Long("svg") => cli.svg = true,
                Long("how") => cli.how = true,
                Long("offline") => cli.offline = true,
                // A second `--file` is a word, as written: `estimate` then refuses the extra words.
                Long("file") if cli.file.is_some() => cli.words.push(match p.optional_value() {
                    Some(v) => format!("--file={}", text(v)),
                    None => "--file".into(),
                }),
                Long("file") => cli.file = Some(p.value().map(text).unwrap_or_default()),
                // `--for=NAME`, or `--for NAME` where NAME is not a flag (`--for --json` lacks one).
                Long("for") => {
                    let name = p.optional_value().map(text).or_else(|| next_word(&mut p));
                    cli.target = Some(name.ok_or(crate::USAGE)?);
                }
                other => return Err(other.unexpected().to_string()),
            }
        }
    }

    /// Refuse a flag that `cmd` does not read (`--svg` on `estimate`) with the usage text.
    pub fn only_flags_of(&self, cmd: &str) -> Result<(), String> {
        let stray = (self.target.is_some() && cmd != "solve")
            || (self.svg && cmd != "frontier")
            || (self.how && cmd != "measure");
        if stray {
            return Err(crate::USAGE.into());
        }
        Ok(())
    }
}

/// The next argument when it is a word (not one of [`FLAGS`], with or without `=VALUE`),
/// taken as written, as lexopt's documentation does for nonstandard arguments
/// (<https://docs.rs/lexopt/latest/lexopt/struct.Parser.html#method.try_raw_args>).
fn next_word(p: &mut lexopt::Parser) -> Option<String> {
    let mut raw = p.try_raw_args()?;
    let arg = raw.peek()?.to_str()?;
    let name = arg.split_once('=').map_or(arg, |(name, _)| name);
    let valued = arg.contains('=') && (name == "--file" || name == "--for");
    if FLAGS.contains(&arg) || valued {
        return None;
    }
    raw.next().map(text)
}

/// An argument that [`utf8`] has checked.
fn text(s: std::ffi::OsString) -> String {
    s.to_string_lossy().into_owned()
}

/// The arguments as text: bad bytes are bad input like any other, refused in one line naming
/// the argument's position.
fn utf8(args: impl Iterator<Item = std::ffi::OsString>) -> Result<Vec<String>, String> {
    args.enumerate()
        .map(|(n, a)| {
            a.into_string().map_err(|a| {
                format!(
                    "argument {} is not valid UTF-8: {}",
                    n + 1,
                    quote(&a.to_string_lossy())
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, String> {
        Cli::parse(args.iter().map(|a| a.to_string()).collect())
    }

    fn words(args: &[&str]) -> Vec<String> {
        parse(args).unwrap().words
    }

    #[test]
    fn flags_anywhere_words_in_order() {
        let c = parse(&["--json", "estimate", "ctx=1", "--file", "m.gguf"]).unwrap();
        assert_eq!(c.words, ["estimate", "ctx=1"]);
        assert!(c.json);
        assert_eq!(c.file.as_deref(), Some("m.gguf"));
        let c = parse(&["solve", "q", "--for=ctx"]).unwrap();
        assert_eq!(c.target.as_deref(), Some("ctx"));
        let c = parse(&["frontier", "q", "--svg", "--how"]).unwrap();
        assert!(c.svg && c.how && !c.json);
    }

    /// What is not a flag is a word, as written: `--`, `-`, `--json=1`, a reading like
    /// `-1:5`, an unknown `--png`.
    #[test]
    fn other_dashes_stay_words() {
        for w in ["--", "-", "--json=1", "-1:5", "--png", "-x", "--svg=1"] {
            assert_eq!(words(&["estimate", w]), ["estimate", w], "{w}");
        }
    }

    /// `--file` takes the next argument whatever it is, or none at the end; a second
    /// `--file` is a word; `--for` without a name is the usage text.
    #[test]
    fn values() {
        let c = parse(&["estimate", "--file", "--json"]).unwrap();
        assert_eq!((c.file.as_deref(), c.json), (Some("--json"), false));
        assert_eq!(
            parse(&["estimate", "--file"]).unwrap().file.as_deref(),
            Some("")
        );
        let c = parse(&["estimate", "--file=a", "--file=b"]).unwrap();
        assert_eq!(
            (c.file.as_deref(), c.words),
            (Some("a"), vec!["estimate".into(), "--file=b".into()])
        );
        let c = parse(&["estimate", "--file", "a", "--file", "b"]).unwrap();
        assert_eq!(
            (c.file.as_deref(), c.words),
            (
                Some("a"),
                vec!["estimate".into(), "--file".into(), "b".into()]
            )
        );
        assert_eq!(parse(&["solve", "q", "--for"]), Err(crate::USAGE.into()));
        assert_eq!(
            parse(&["solve", "q", "--for", "--json"]),
            Err(crate::USAGE.into())
        );
    }

    #[test]
    fn stray_flags() {
        let c = parse(&["estimate", "q", "--svg"]).unwrap();
        assert_eq!(c.only_flags_of("estimate"), Err(crate::USAGE.into()));
        assert_eq!(c.only_flags_of("frontier"), Ok(()));
    }
}
