//! The ACL search page is sent while the cluster's answer arrives: a result of 6,000 ACLs
//! passes through a proxy that holds the answer back after its first part, and the page's
//! head and its first page of rows must be in before the rest of the answer is let through.
//! The search is of every ACL, created out of display order: the broker's answer comes in
//! display order all the same (resources by type, name, pattern type; entries sorted).

mod cli_support;
mod console_support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cli_support::{kacl, TestServer};
use console_support::{dechunk, Console};

/// Bytes from the broker let through before the gate holds the rest.
const LET_THROUGH: usize = 50_000;

/// A TCP proxy to `target` whose broker-to-client direction stops after [`LET_THROUGH`]
/// bytes (over all connections) until `open` is set.
struct GatedProxy {
    addr: String,
    open: Arc<AtomicBool>,
    forwarded: Arc<AtomicUsize>,
}

impl GatedProxy {
    fn start(target: &str) -> GatedProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let open = Arc::new(AtomicBool::new(false));
        let forwarded = Arc::new(AtomicUsize::new(0));
        let (gate, count, target) = (open.clone(), forwarded.clone(), target.to_owned());
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let Ok(broker) = TcpStream::connect(&target) else {
                    return;
                };
                let (mut c_in, mut b_out) =
                    (client.try_clone().unwrap(), broker.try_clone().unwrap());
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut c_in, &mut b_out);
                });
                let (gate, count) = (gate.clone(), count.clone());
                let (mut b_in, mut c_out) = (broker, client);
                std::thread::spawn(move || {
                    let mut buf = [0u8; 16 * 1024];
                    loop {
                        let n = match b_in.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => n,
                        };
                        let mut sent = 0;
                        while sent < n {
                            let room = LET_THROUGH.saturating_sub(count.load(Ordering::SeqCst));
                            let step = if gate.load(Ordering::SeqCst) {
                                n - sent
                            } else {
                                room.min(n - sent)
                            };
                            if step == 0 {
                                // Bounded: the test opens the gate within its own timeout.
                                std::thread::sleep(Duration::from_millis(5));
                                continue;
                            }
                            if c_out.write_all(&buf[sent..sent + step]).is_err() {
                                return;
                            }
                            count.fetch_add(step, Ordering::SeqCst);
                            sent += step;
                        }
                    }
                });
            }
        });
        GatedProxy {
            addr,
            open,
            forwarded,
        }
    }
}

#[test]
fn a_large_result_streams_its_first_page_before_the_answer_is_complete() {
    let server = TestServer::plaintext();
    // Created in the reverse of the display order (last topic and last principal first): a
    // kacl broker still answers a search of every ACL in display order, which is what lets
    // the console send the first page early.
    let acls: Vec<serde_json::Value> = (0..6_000)
        .rev()
        .map(|i| {
            serde_json::json!({
                "resourceType": "TOPIC", "name": format!("topic-{:05}", i / 10),
                "patternType": "LITERAL", "principal": format!("User:u{}", i % 10),
                "host": "*", "operation": "READ", "permissionType": "ALLOW",
            })
        })
        .collect();
    let file = server.file(
        "acls.json",
        &serde_json::json!({"version": 1, "acls": acls}).to_string(),
    );
    kacl(&[
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--add",
        "--from-file",
        &file,
    ]);

    let proxy = GatedProxy::start(&server.addr);
    let console = Console::start(&proxy.addr, &[]);
    let cookie = console.login("none", "", "").unwrap();
    assert!(proxy.forwarded.load(Ordering::SeqCst) < LET_THROUGH / 10);

    let mut page = TcpStream::connect(&console.addr).unwrap();
    page.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        page,
        "GET /acls?refresh=1 HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n",
        console.addr
    )
    .unwrap();
    // Read until the first page of rows is in: the answer is still held at the proxy.
    let mut raw = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut buf = [0u8; 8192];
    while !String::from_utf8_lossy(&raw).contains("</table></div>") {
        assert!(
            Instant::now() < deadline,
            "no early rows: {}",
            String::from_utf8_lossy(&raw)
        );
        let n = page.read(&mut buf).unwrap();
        assert!(
            n > 0,
            "the page ended early: {}",
            String::from_utf8_lossy(&raw)
        );
        raw.extend_from_slice(&buf[..n]);
    }
    let early = String::from_utf8_lossy(&raw).into_owned();
    assert!(early.starts_with("HTTP/1.1 200"), "{early}");
    assert!(
        early
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{early}"
    );
    assert!(early.contains("id=\"early-rows\""), "{early}");
    assert!(early.contains("topic-00000"), "{early}");
    assert!(
        !early.contains("acl-timing"),
        "the page is not complete yet"
    );
    assert!(!early.contains("6,000"), "the counts come at the end");
    assert!(proxy.forwarded.load(Ordering::SeqCst) <= LET_THROUGH);

    proxy.open.store(true, Ordering::SeqCst);
    page.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let body = dechunk(text.split_once("\r\n\r\n").unwrap().1);
    assert!(body.contains("<strong>6,000</strong> ACLs"), "{body}");
    assert!(body.contains("id=\"acl-timing\""), "{body}");
    assert!(body.ends_with("</html>"), "{body}");
    // The early rows were the first page: not hidden, not repeated.
    assert!(!body.contains("#early-rows{display:none}"));
    assert_eq!(
        body.matches("topic-00000").count(),
        early.matches("topic-00000").count()
    );
    // A cached page is rendered whole, as before.
    let cached = console.request("GET", "/acls?page=3", Some(&cookie), None);
    assert_eq!(cached.status, 200);
    assert!(cached.body.contains("topic-00015"), "{}", cached.body);
    assert!(cached
        .header("server-timing")
        .is_some_and(|t| t.contains("app;dur=")));
}
