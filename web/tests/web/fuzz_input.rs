//! The inputs of the `web_api` fuzz target, read one way by the target
//! (`fuzz/fuzz_targets/web_api.rs` includes this file) and by the test that
//! replays its committed corpus (`api.rs`).
//!
//! An input is one request or a sequence of them, separated by `===` lines
//! (the first [`MAX_REQUESTS`] requests are sent, all to one server and one
//! session: a PDN loaded then opened, moves then an undo, a watched file
//! that grows). A request's first line is `METHOD /path?query` and the rest
//! its body; `$S` in either stands for the live session's id. For a
//! `/api/watch…` request, the body ends at the first `---` line: what
//! follows is the text
//! the watched PDN file and its summary hold from that request on (without
//! that line they keep what they held, empty at the start). Searches are cut short:
//! `/api/engine` and `/api/analyse` get a movetime of at most [`SEARCH_MS`]
//! (added when none is given), so that an input takes milliseconds rather
//! than the minutes a search may be allowed. Any other path naming a search
//! is left out.

/// Longest search of one input, in milliseconds.
pub const SEARCH_MS: u64 = 20;

/// One request, as the router gets it.
pub struct Input {
    pub method: String,
    pub uri: String,
    pub body: String,
    /// The watched files' text from this request on (`/api/watch`
    /// requests with a `---` line).
    pub watched: Option<String>,
}

/// Most requests read from one input.
pub const MAX_REQUESTS: usize = 16;

/// The requests an input stands for, in order, with `session` for `$S`: its
/// parts between `===` lines (a line of its own, `\r\n` ends too) that are
/// requests the target sends (the others are left out), at most
/// [`MAX_REQUESTS`].
pub fn read_inputs(text: &str, session: &str) -> Vec<Input> {
    let mut parts = Vec::new();
    let (mut start, mut pos) = (0, 0);
    for line in text.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']) == "===" {
            // The part ends before the line break that ends its last line.
            let part = &text[start..pos];
            let part = part.strip_suffix('\n').unwrap_or(part);
            parts.push(part.strip_suffix('\r').unwrap_or(part));
            start = pos + line.len();
        }
        pos += line.len();
    }
    parts.push(&text[start..]);
    parts
        .into_iter()
        .filter_map(|part| read_input(part, session))
        .take(MAX_REQUESTS)
        .collect()
}

/// The request one part of an input stands for, with `session` for `$S`;
/// `None` when the part is no request the target sends.
pub fn read_input(text: &str, session: &str) -> Option<Input> {
    let (head, rest) = text.split_once('\n').unwrap_or((text, ""));
    let (method, uri) = head.split_once(' ')?;
    if !uri.starts_with('/') {
        return None;
    }
    let path = uri.split('?').next().unwrap_or("");
    let search = path == "/api/engine" || path == "/api/analyse";
    let named = path.to_ascii_lowercase();
    if !search && (named.contains("engine") || named.contains("analyse") || path.contains('%')) {
        return None;
    }
    let (body, watched) = if path.starts_with("/api/watch") {
        let cut = if rest.starts_with("---\n") {
            Some((0, 4))
        } else {
            rest.find("\n---\n").map(|i| (i, i + 5))
        };
        match cut {
            Some((end, start)) => (&rest[..end], Some(rest[start..].to_string())),
            None => (rest, None),
        }
    } else {
        (rest, None)
    };
    let mut uri = uri.replace("$S", session);
    let mut body = body.replace("$S", session);
    if path == "/api/engine" {
        body = capped_body(&body)?;
    } else if path == "/api/analyse" {
        uri = capped_query(&uri)?;
    }
    Some(Input {
        method: method.to_string(),
        uri,
        body,
        watched,
    })
}

/// A movetime cut to [`SEARCH_MS`]: a whole number from 1 up is cut, any
/// other value is left for the server to refuse.
fn capped(value: &serde_json::Value) -> Option<serde_json::Value> {
    let n = value.as_u64().filter(|&n| n >= 1)?;
    Some(n.min(SEARCH_MS).into())
}

/// An `/api/engine` body with its movetime capped, and set when missing or
/// null. A body that is no JSON is sent as it is, to be refused; `None` for
/// JSON that is not an object (serde reads a struct from an array too, where
/// the movetime cannot be told from the other fields).
fn capped_body(body: &str) -> Option<String> {
    let mut map = match serde_json::from_str(body) {
        Err(_) => return Some(body.to_string()),
        Ok(serde_json::Value::Object(map)) => map,
        Ok(_) => return None,
    };
    match map.get("movetime") {
        None | Some(serde_json::Value::Null) => {
            map.insert("movetime".into(), SEARCH_MS.into());
        }
        Some(v) => {
            if let Some(c) = capped(v) {
                map.insert("movetime".into(), c);
            }
        }
    }
    Some(serde_json::Value::Object(map).to_string())
}

/// An `/api/analyse` URI with its movetime capped; `None` when its query
/// does not decode (the server would refuse it too, but a query that does
/// not decode here cannot be checked for a long search).
fn capped_query(uri: &str) -> Option<String> {
    let (path, query) = uri.split_once('?').unwrap_or((uri, ""));
    let mut pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).ok()?;
    let mut seen = false;
    for (k, v) in &mut pairs {
        if k == "movetime" {
            seen = true;
            if let Some(n) = v.trim().parse::<u64>().ok().filter(|&n| n >= 1) {
                *v = n.min(SEARCH_MS).to_string();
            }
        }
    }
    if !seen {
        pairs.push(("movetime".into(), SEARCH_MS.to_string()));
    }
    Some(format!(
        "{path}?{}",
        serde_urlencoded::to_string(&pairs).ok()?
    ))
}
