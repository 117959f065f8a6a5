//! Each value of the query string read, bounded and checked, or refused with a one-line
//! message naming what is allowed.

use super::*;

/// Read one of a closed set of identifiers, or say which ones there are.
pub(super) fn ident<T: FromStr + Ids>(val: &str) -> Result<T, String> {
    T::from_str(val).map_err(|_| bad(val, &T::all_ids()))
}

/// The identifier enums' lists, for the "is not one of" message.
pub(super) trait Ids: Sized + 'static {
    fn all_ids() -> String;
}

macro_rules! impl_ids {
    ($($t:ty),+) => {$(
        impl Ids for $t {
            fn all_ids() -> String {
                <$t>::ALL.iter().map(|x| x.id()).collect::<Vec<_>>().join(", ")
            }
        }
    )+};
}

impl_ids!(Method, GradCkpt, Optim, TargetModule, Trainer, Spec);

/// The `n` ids of `ids` nearest to `val` ([`crate::order::nearest_names`]), with how many
/// there are: the catalog's family list grows past what one bounded message can hold.
pub(super) fn closest_ids(val: &str, ids: &[&str], n: usize) -> String {
    let near = crate::order::nearest_names(val, ids, n);
    if ids.len() > near.len() {
        format!("{}, … ({} families)", near.join(", "), ids.len())
    } else {
        near.join(", ")
    }
}

pub(super) fn bad(val: &str, allowed: &str) -> String {
    format!("{} is not one of {allowed}; kept the default", quote(val))
}

pub(super) fn num<T>(val: &str, (lo, hi): (T, T)) -> Result<T, String>
where
    T: FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let x: T = val
        .parse()
        .map_err(|_| format!("{} is not a whole number; kept the default", quote(val)))?;
    if x < lo || x > hi {
        return Err(format!("{x} is outside {lo}…{hi}; kept the default"));
    }
    Ok(x)
}

pub(super) fn fnum(val: &str, (lo, hi): (f64, f64)) -> Result<f64, String> {
    let x = crate::units::parse_decimal(val)
        .ok_or_else(|| format!("{} is not a number; kept the default", quote(val)))?;
    if !x.is_finite() || x < lo || x > hi {
        return Err(format!(
            "{} is outside {}…{}; kept the default",
            clean(val),
            crate::units::Shortest(lo),
            crate::units::Shortest(hi)
        ));
    }
    Ok(x)
}

/// `ncmoe=`: `all`, or how many leading layers keep their experts in system RAM.
pub(super) fn cpu_moe(val: &str) -> Result<crate::inputs::CpuMoe, String> {
    if val.eq_ignore_ascii_case("all") {
        return Ok(crate::inputs::CpuMoe::All);
    }
    match val.parse::<u32>() {
        Ok(n) if n <= crate::inputs::limits::NGL.1 => Ok(crate::inputs::CpuMoe::Layers(n)),
        _ => Err(format!(
            "{} is neither a layer count (0…{}) nor all; kept the default",
            quote(val),
            crate::inputs::limits::NGL.1
        )),
    }
}

pub(super) fn flag(val: &str) -> Result<bool, String> {
    match val {
        "1" | "true" | "" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err(format!("{} is not 0 or 1; kept the default", quote(val))),
    }
}

pub(super) fn list<T>(val: &str, f: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    let v: Vec<T> = val
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(f)
        .collect::<Result<_, _>>()?;
    if v.len() > limits::GPUS {
        return Err(format!("more than {} GPUs; kept the default", limits::GPUS));
    }
    Ok(v)
}

/// A Hub revision: a commit sha or a branch/tag name (letters, digits, `- _ .`, at most 64).
pub(super) fn revision(val: &str) -> Result<String, String> {
    let ok = (1..=64).contains(&val.len())
        && !val.starts_with('.')
        && val
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    ok.then(|| val.to_string())
        .ok_or_else(|| bad(val, "a commit sha such as 0123abcd… or a branch name"))
}

/// A file path inside a Hub repo: relative, no `..` segment, no control characters, at most
/// 300 bytes.
pub(super) fn repo_path(val: &str) -> Result<String, String> {
    let ok = (1..=300).contains(&val.len())
        && !val.starts_with('/')
        && !val.contains('\\')
        && !val.chars().any(char::is_control)
        && val
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..");
    ok.then(|| val.to_string())
        .ok_or_else(|| bad(val, "a file path in the repo such as model-Q4_K_M.gguf"))
}

/// Shortest decimal that reads back to the same value (`24`, `22.5`, `0.9`).
pub(super) fn fmt_num(x: f64) -> String {
    crate::units::Shortest(x).to_string()
}
