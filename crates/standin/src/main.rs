//! `fitcard-standin --hub PORT --cdn PORT --away PORT`: the page's fixture repos
//! ([`fitcard_standin::page::repos`]) on a stand-in Hub, its file host, and a host outside both
//! that answers as either (a redirect there must never be followed), all on 127.0.0.1 with one
//! log (`/_standin/log`, `/_standin/reset` on any of them). Prints `ready` once all three
//! listen, then serves until killed.

use fitcard_standin::repos::{cdn, hub, Hosts};
use fitcard_standin::server::{Shared, StandIn};

fn port(args: &[String], flag: &str) -> Result<u16, String> {
    let at = args
        .iter()
        .position(|a| a == flag)
        .ok_or_else(|| format!("{flag} PORT is required"))?;
    args.get(at + 1)
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("{flag}: a port number (1 to 65535) is required"))
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (h, c, a) = (
        port(&args, "--hub")?,
        port(&args, "--cdn")?,
        port(&args, "--away")?,
    );
    let base = |p: u16| format!("http://127.0.0.1:{p}");
    let hosts = Hosts {
        cdn: base(c),
        away: base(a),
    };
    let repos = fitcard_standin::page::repos();
    let log = Shared::default();
    let mut outside = hub(&repos, &hosts, true);
    outside.extend(cdn(&repos));
    let bind = |e: std::io::Error| format!("cannot listen on 127.0.0.1: {e}");
    StandIn::on(h, hub(&repos, &hosts, false), "", log.clone()).map_err(bind)?;
    StandIn::on(c, cdn(&repos), "cdn:", log.clone()).map_err(bind)?;
    StandIn::on(a, outside, "away:", log).map_err(bind)?;
    println!("ready");
    loop {
        std::thread::park();
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("fitcard-standin: {e}");
        std::process::exit(2);
    }
}
