//! A `debrief serve` started by a test, and the one HTTP/1.1 client the tests use to ask it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `debrief serve`; stopped when dropped.
pub struct Server {
    pub child: Child,
    pub port: u16,
    pub token: String,
    pub url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `command` (a `debrief … serve`) and read the URL it prints.
pub fn start(mut command: Command) -> Server {
    let mut child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("start debrief serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("the URL on stdout");
    let url = line.trim().to_string();
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap_or_else(|| panic!("not a loopback URL: {url:?}"));
    let (port, token) = rest.split_once("/?token=").unwrap_or_else(|| panic!("no token in {url:?}"));
    assert_eq!(token.len(), 48, "{url}");
    Server { port: port.parse().unwrap(), token: token.to_string(), url: url.clone(), child }
}

pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request, `Connection: close`, read to the end.
pub fn request(port: u16, method: &str, path: &str, host: &str, cookie: Option<&str>) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    if let Some(c) = cookie {
        req.push_str(&format!("Cookie: {c}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|c| c.parse().ok()).expect("a status line");
    let headers =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect();
    Answer { status, headers, body: body.to_string() }
}

impl Server {
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
    pub fn cookie(&self) -> String {
        format!("debrief-{}={}", self.port, self.token)
    }
    /// A page, with the cookie.
    pub fn get(&self, path: &str) -> Answer {
        request(self.port, "GET", path, &self.host(), Some(&self.cookie()))
    }
    pub fn ok(&self, path: &str) -> String {
        let a = self.get(path);
        assert_eq!(a.status, 200, "GET {path}: {}", a.body);
        assert!(a.header("content-type").is_some_and(|c| c.starts_with("text/html")), "GET {path}");
        a.body
    }
}
