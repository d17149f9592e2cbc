//! The lines a started `kacl` prints on stdout to say where it listens: `kacl serve` prints
//! `listening <LISTENER>://<ADDR>` once per listener, `kacl console` prints
//! `console listening <scheme>://<ADDR>`. Tests start the binary on port 0 and read the real
//! address from these lines, so they are parsed here once.

use std::io::{BufRead, BufReader};
use std::process::Child;
use std::sync::mpsc;
use std::time::Duration;

/// One `listening` line: the listener's name (`PLAINTEXT`, `SASL_SSL`, a custom name, or the
/// console's scheme) and its `HOST:PORT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listening {
    /// The listener name, or `http`/`https` for the console.
    pub name: String,
    /// `HOST:PORT` as printed.
    pub addr: String,
}

/// Parses `listening NAME://ADDR` (`kacl serve`) or `console listening SCHEME://ADDR`
/// (`kacl console`); `None` for any other line.
pub fn parse(line: &str) -> Option<Listening> {
    let line = line.trim();
    let rest = line
        .strip_prefix("listening ")
        .or_else(|| line.strip_prefix("console listening "))?;
    let (name, addr) = rest.split_once("://")?;
    Some(Listening {
        name: name.to_owned(),
        addr: addr.to_owned(),
    })
}

/// Reads the child's stdout (which must be piped) for its first line, at most 30 s, and
/// returns the address of that `listening` line; else what came instead (a refused start
/// prints nothing there and exits, closing stdout). The rest of stdout is drained on a thread,
/// so the child never blocks on a full pipe.
pub fn first_addr(child: &mut Child) -> Result<String, String> {
    let stdout = child.stdout.take().expect("the child's stdout is piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines().map_while(Result::ok);
        let first = lines.next();
        let _ = tx.send(match first.as_deref().map(parse) {
            Some(Some(listening)) => Ok(listening.addr),
            Some(None) => Err(format!("unexpected first line {first:?}")),
            None => Err("stdout closed before a listening line".to_owned()),
        });
        lines.for_each(drop);
    });
    rx.recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| Err("no listening line within 30 s".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_parse_and_nothing_else_does() {
        assert_eq!(
            parse("listening SASL_SSL://127.0.0.1:9093\n"),
            Some(Listening {
                name: "SASL_SSL".into(),
                addr: "127.0.0.1:9093".into()
            })
        );
        assert_eq!(
            parse("console listening https://127.0.0.1:8443").map(|l| l.addr),
            Some("127.0.0.1:8443".into())
        );
        assert_eq!(parse("error: the data directory is refused"), None);
        assert_eq!(parse("listening nowhere"), None);
    }
}
