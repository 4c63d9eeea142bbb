//! `bushka serve`: starts, answers, warns off loopback, refuses bad options.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};

fn bushka(args: &[&str]) -> Output {
    Command::new(crate::bin())
        .args(args)
        .output()
        .expect("run bushka")
}

/// A running server, ended by its process id when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `bushka serve` on a free port; returns it, its address and its stderr so far.
fn start(args: &[&str]) -> (Server, String) {
    // Held from its start: a failed look at its first line stops it too.
    let mut server = Server(
        Command::new(crate::bin())
            .args(["serve", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run bushka serve"),
    );
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .strip_prefix("serving on http://")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("first line: {line}"))
        .to_string();
    (server, addr)
}

/// One HTTP/1.1 request (`head` is its first line and any headers past
/// `Host`, each ended by CRLF); the whole answer.
fn request(addr: &str, head: &str, body: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "{head}Host: {addr}\r\nConnection: close\r\n\r\n{body}").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// One HTTP/1.1 GET; the whole answer.
fn get(addr: &str, path: &str) -> String {
    request(addr, &format!("GET {path} HTTP/1.1\r\n"), "")
}

#[test]
fn serves_the_page_and_the_api_on_loopback() {
    let (_server, addr) = start(&[]);
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let page = get(&addr, "/");
    assert!(
        page.starts_with("HTTP/1.1 200") && page.contains("<script type=\"module\""),
        "{page}"
    );
    let config = get(&addr, "/api/config");
    assert!(config.contains("\"watch\":false"), "{config}");
    let missing = get(&addr, "/api/state?session=x");
    assert!(
        missing.starts_with("HTTP/1.1 404") && missing.contains("unknown session 'x'"),
        "{missing}"
    );
}

/// One HTTP/1.1 POST of a JSON body; the whole answer.
fn post(addr: &str, path: &str, json: &str) -> String {
    let head = format!(
        "POST {path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        json.len()
    );
    request(addr, &head, json)
}

/// Ctrl-C stops the server while an analysis streams: the search is
/// stopped, the stream ends with its `done` event, and the server exits
/// (an analysis would otherwise run for its ten minutes).
#[test]
fn ctrl_c_stops_the_server_during_an_analysis() {
    let (mut server, addr) = start(&[]);
    let new = post(&addr, "/api/new", r#"{"game":"bushka"}"#);
    let session = new
        .split("\"session\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("{new}"))
        .to_string();
    let mut stream = TcpStream::connect(&addr).unwrap();
    write!(
        stream,
        "GET /api/analyse?session={session}&movetime=600000 HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    // The stream has begun once its first event is in.
    while !line.starts_with("event: info") {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended");
    }
    let began = std::time::Instant::now();
    let pid = server.0.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let mut rest = String::new();
    reader.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("event: done"), "{rest}");
    let status = server.0.wait().unwrap();
    assert!(status.success(), "{status}");
    // Within the grace period, not the analysis's ten minutes.
    assert!(began.elapsed().as_secs() < 30, "{:?}", began.elapsed());
}

#[test]
fn a_reachable_address_is_warned_about() {
    let (mut server, _) = start(&["--host", "0.0.0.0"]);
    let mut err = String::new();
    BufReader::new(server.0.stderr.take().unwrap())
        .read_line(&mut err)
        .unwrap();
    assert!(err.starts_with("warning: listening on 0.0.0.0"), "{err}");
}

#[test]
fn bad_options_are_refused_in_one_line() {
    for (args, expect) in [
        (
            vec!["serve", "--watch", "/nonexistent/run.pdn"],
            "--watch /nonexistent/run.pdn",
        ),
        (vec!["serve", "--summary", "run.json"], "--watch"),
        (
            vec!["serve", "--watch", "/", "--port", "0"],
            "--watch /: a folder, not a PDN file",
        ),
        (
            vec!["serve", "--watch", "/dev/zero", "--port", "0"],
            "--watch /dev/zero: not a regular file",
        ),
        (
            vec!["serve", "--host", "nowhere"],
            "invalid value 'nowhere'",
        ),
        (vec!["serve", "--port", "70000"], "invalid value '70000'"),
    ] {
        let o = bushka(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(expect), "{args:?}: {err}");
    }
}
