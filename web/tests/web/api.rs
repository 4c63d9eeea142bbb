//! The JSON API, request by request, through the router (no port bound).

use axum::body::Body;
use axum::http::{Request, StatusCode};
use engine::{bashnya, bushka, Game};
use serde_json::{json, Value};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use tower::ServiceExt;
use web::{router, AppState};

/// Sends one request; returns the status and the body (JSON when it is).
async fn call(
    app: &Arc<AppState>,
    method: &str,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let req = Request::builder().method(method).uri(uri);
    let req = match body {
        Some(b) => req
            .header("content-type", "application/json")
            .body(Body::from(b.to_string())),
        None => req.body(Body::empty()),
    }
    .unwrap();
    raw(app, req).await
}

async fn raw(app: &Arc<AppState>, req: Request<Body>) -> (StatusCode, Value) {
    let resp = router(Arc::clone(app)).oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, value)
}

async fn new_game(app: &Arc<AppState>, game: &str, position: Option<&str>) -> Value {
    let (status, v) = call(
        app,
        "POST",
        "/api/new",
        Some(json!({"game": game, "position": position})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    v
}

/// `POST /api/watch/open` of game `index` for session `id`.
async fn open_watched(app: &Arc<AppState>, id: &str, index: u64) -> (StatusCode, Value) {
    let body = json!({"session": id, "index": index});
    call(app, "POST", "/api/watch/open", Some(body)).await
}

fn error_of(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message in {v}"))
}

#[tokio::test]
async fn a_game_of_each_kind_is_played_and_taken_back() {
    let app = AppState::new(None);
    for (game, legal) in [
        ("bushka", bushka::Position::start().count_moves()),
        ("bashnya", bashnya::Position::start().count_moves()),
    ] {
        let g = new_game(&app, game, None).await;
        let id = g["session"].as_str().unwrap().to_string();
        assert_eq!(g["game"], game);
        assert_eq!(g["legal"].as_array().unwrap().len() as u64, legal);
        assert_eq!(
            g["board"]["squares"].as_array().unwrap().len(),
            if game == "bushka" { 50 } else { 32 }
        );
        let first = g["legal"][0]["text"].as_str().unwrap().to_string();
        let (s, after) = call(
            &app,
            "POST",
            "/api/move",
            Some(json!({"session": id, "move": first})),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{after}");
        assert_eq!(after["ply"], 1);
        assert_eq!(after["side"], "black");
        assert_eq!(after["moves"][0]["text"], first.as_str());
        let (s, back) = call(&app, "POST", "/api/undo", Some(json!({"session": id}))).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(back["ply"], 0);
        assert_eq!(back["position"], g["position"]);
        let (s, e) = call(&app, "POST", "/api/undo", Some(json!({"session": id}))).await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert!(error_of(&e).contains("nothing to undo"));
    }
    assert_eq!(app.sessions.len(), 2);
}

#[tokio::test]
async fn moves_carry_their_squares() {
    let app = AppState::new(None);
    let g = new_game(&app, "bashnya", Some("W:c3=w,e1=w,g1=w,d4=b,f6=b,b8=b")).await;
    let legal = g["legal"].as_array().unwrap();
    let double = legal.iter().find(|m| m["text"] == "c3:e5:g7").unwrap();
    assert_eq!(double["from"], "c3");
    assert_eq!(double["to"], "g7");
    assert_eq!(double["path"], json!(["e5", "g7"]));
    assert_eq!(double["captured"], json!(["d4", "f6"]));
    let g = new_game(&app, "bushka", Some("B:We2,e6,e7:Be4,e5")).await;
    let m = &g["legal"][0];
    assert_eq!(
        (m["text"].as_str(), m["from"].as_str(), m["to"].as_str()),
        (Some("e5x3"), Some("e5"), Some("e3"))
    );
    assert_eq!(m["captured"], json!(["e2"]));
}

#[tokio::test]
async fn bad_requests_get_a_4xx_naming_the_problem() {
    let app = AppState::new(None);
    let g = new_game(&app, "bushka", None).await;
    let id = g["session"].as_str().unwrap();
    let svg_ply = format!("/api/svg?session={id}&ply=9");
    let cases: Vec<(&str, &str, Option<Value>, StatusCode, &str)> = vec![
        (
            "POST",
            "/api/new",
            Some(json!({"game": "chess"})),
            StatusCode::BAD_REQUEST,
            "unknown game 'chess'",
        ),
        (
            "POST",
            "/api/new",
            Some(json!({"game": "bushka", "position": "W:Wz9"})),
            StatusCode::BAD_REQUEST,
            "position text",
        ),
        (
            "POST",
            "/api/new",
            Some(json!({"position": "start"})),
            StatusCode::BAD_REQUEST,
            "missing field `game`",
        ),
        (
            "POST",
            "/api/new",
            Some(json!({"game": "bushka", "colour": 1})),
            StatusCode::BAD_REQUEST,
            "unknown field `colour`",
        ),
        (
            "POST",
            "/api/move",
            Some(json!({"session": id, "move": "zz9"})),
            StatusCode::BAD_REQUEST,
            "cannot read move 'zz9'",
        ),
        (
            "POST",
            "/api/move",
            Some(json!({"session": id, "move": "e13"})),
            StatusCode::BAD_REQUEST,
            "move 'e13'",
        ),
        (
            "POST",
            "/api/move",
            Some(json!({"session": "nope", "move": "e12"})),
            StatusCode::NOT_FOUND,
            "unknown session 'nope'",
        ),
        (
            "POST",
            "/api/engine",
            Some(json!({"session": id, "depth": 0})),
            StatusCode::BAD_REQUEST,
            "depth 0 is out of range",
        ),
        (
            "POST",
            "/api/engine",
            Some(json!({"session": id, "movetime": 600000})),
            StatusCode::BAD_REQUEST,
            "movetime 600000 ms is out of range",
        ),
        (
            "POST",
            "/api/undo",
            Some(json!({"session": id, "to_ply": 5})),
            StatusCode::BAD_REQUEST,
            "cannot go back to ply 5",
        ),
        (
            "POST",
            "/api/pdn",
            Some(json!({"session": id, "pdn": "hello"})),
            StatusCode::BAD_REQUEST,
            "no game in the PDN text",
        ),
        (
            "POST",
            "/api/pdn/open",
            Some(json!({"session": id, "index": 3})),
            StatusCode::BAD_REQUEST,
            "no game 3",
        ),
        ("GET", "/api/state", None, StatusCode::BAD_REQUEST, "query"),
        (
            "GET",
            "/api/svg?game=bashnya&position=W:z9=w",
            None,
            StatusCode::BAD_REQUEST,
            "position text",
        ),
        (
            "GET",
            "/api/svg",
            None,
            StatusCode::BAD_REQUEST,
            "give either session",
        ),
        ("GET", &svg_ply, None, StatusCode::BAD_REQUEST, "no ply 9"),
        (
            "GET",
            "/api/watch",
            None,
            StatusCode::NOT_FOUND,
            "nothing is watched",
        ),
        (
            "GET",
            "/etc/passwd",
            None,
            StatusCode::NOT_FOUND,
            "no such page",
        ),
        // Found by the web_api fuzz target: a message quoting the request's
        // line break was two lines; a 405 had an empty body.
        (
            "POST",
            "/api/move",
            Some(json!({"session": id, "move": "e1\n2"})),
            StatusCode::BAD_REQUEST,
            "cannot read move 'e1\\n2'",
        ),
        (
            "GET",
            "/api/move",
            None,
            StatusCode::METHOD_NOT_ALLOWED,
            "GET is not allowed on this route",
        ),
        (
            "DELETE",
            "/api/pdn",
            None,
            StatusCode::METHOD_NOT_ALLOWED,
            "DELETE is not allowed",
        ),
    ];
    for (method, uri, body, status, text) in cases {
        let (s, v) = call(&app, method, uri, body.clone()).await;
        assert!(!error_of(&v).contains('\n'), "{v}");
        assert_eq!(s, status, "{method} {uri} {body:?}: {v}");
        assert!(
            error_of(&v).contains(text),
            "{method} {uri}: '{}' lacks '{text}'",
            error_of(&v)
        );
    }
    let req = Request::post("/api/move")
        .header("content-type", "application/json")
        .body(Body::from("{not json"))
        .unwrap();
    let (s, v) = raw(&app, req).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("not valid JSON"), "{v}");
    let huge = "x".repeat(web::api_limits::MAX_BODY + 1);
    let req = Request::post("/api/pdn")
        .header("content-type", "application/json")
        .body(Body::from(huge))
        .unwrap();
    let (s, v) = raw(&app, req).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(error_of(&v).starts_with("request body"), "{v}");
    // A quoted request text is cut: the answer stays short.
    let long = "e1".to_string() + &"x".repeat(10_000);
    let (s, v) = call(
        &app,
        "POST",
        "/api/move",
        Some(json!({"session": id, "move": long})),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let e = error_of(&v);
    assert!(e.starts_with("cannot read move 'e1xxx"), "{e}");
    // The move's text is cut where the engine quotes it.
    assert!(e.len() < 400 && e.contains("xxx...'"), "{e}");
}

/// What a page of another site could make a browser send is refused: a
/// POST whose body is not declared JSON (it needs no preflight), and, on a
/// loopback server, a request naming another host (DNS rebinding).
#[tokio::test]
async fn requests_a_foreign_page_could_send_are_refused() {
    let app = AppState::new(None);
    for kind in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        let mut req = Request::post("/api/new");
        if let Some(k) = kind {
            req = req.header("content-type", k);
        }
        let req = req.body(Body::from(r#"{"game":"bushka"}"#)).unwrap();
        let (s, v) = raw(&app, req).await;
        assert_eq!(s, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{kind:?}: {v}");
        assert!(error_of(&v).contains("application/json"), "{v}");
    }
    let req = Request::post("/api/new")
        .header("content-type", "application/json; charset=utf-8")
        .body(Body::from(r#"{"game":"bushka"}"#))
        .unwrap();
    assert_eq!(raw(&app, req).await.0, StatusCode::OK);
    for (host, ok) in [
        ("localhost:8080", true),
        ("LOCALHOST", true),
        ("127.0.0.1:1", true),
        ("127.1.2.3", true),
        ("[::1]:8080", true),
        ("evil.example:8080", false),
        ("localhost.evil.example", false),
        ("192.168.1.2:8080", false),
        // Nothing may follow the name but a port.
        ("[::1]evil.example", false),
        ("[::1", false),
        ("localhost:evil.example", false),
        ("localhost:", false),
        ("127.0.0.1:80:80", false),
    ] {
        assert_eq!(web::is_loopback_host(host), ok, "{host}");
        let req = Request::get("/api/config")
            .header("host", host)
            .body(Body::empty())
            .unwrap();
        let (s, v) = raw(&app, req).await;
        if ok {
            assert_eq!(s, StatusCode::OK, "{host}: {v}");
        } else {
            assert_eq!(s, StatusCode::FORBIDDEN, "{host}: {v}");
            assert!(error_of(&v).contains("localhost only"), "{v}");
        }
    }
    // A server bound to another address serves any name.
    let open = AppState::serving(None, false);
    let req = Request::get("/api/config")
        .header("host", "board.example:80")
        .body(Body::empty())
        .unwrap();
    assert_eq!(raw(&open, req).await.0, StatusCode::OK);
}

/// Waits until the session has a search running.
async fn search_started(app: &Arc<AppState>, id: &str) {
    for _ in 0..2000 {
        if app.sessions.with(id, |s| Ok(s.search.is_some())).unwrap() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    panic!("no search began");
}

/// `/api/stop` during an engine move makes the engine play the best move
/// found so far ("move now"); another engine request replaces the first,
/// which then plays nothing (409), and the second moves once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_makes_the_engine_move_now_and_a_second_request_replaces_the_first() {
    let app = AppState::new(None);
    let g = new_game(&app, "bashnya", None).await;
    let id = g["session"].as_str().unwrap().to_string();
    let think = json!({"session": id, "movetime": 60000});
    let first = {
        let (app, think) = (Arc::clone(&app), think.clone());
        tokio::spawn(async move { call(&app, "POST", "/api/engine", Some(think)).await })
    };
    search_started(&app, &id).await;
    let (s, v) = call(&app, "POST", "/api/stop", Some(json!({"session": id}))).await;
    assert_eq!((s, v["stopped"].as_bool()), (StatusCode::OK, Some(true)));
    let (s, v) = first.await.unwrap();
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["ply"], 1, "{v}");
    assert!(v["search"]["best"].is_string(), "{v}");

    let first = {
        let (app, think) = (Arc::clone(&app), think.clone());
        tokio::spawn(async move { call(&app, "POST", "/api/engine", Some(think)).await })
    };
    search_started(&app, &id).await;
    let (s, v) = call(
        &app,
        "POST",
        "/api/engine",
        Some(json!({"session": id, "depth": 2})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["ply"], 2, "{v}");
    let (s, v) = first.await.unwrap();
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert!(error_of(&v).contains("another search began"), "{v}");
    let (_, v) = call(&app, "GET", &format!("/api/state?session={id}"), None).await;
    assert_eq!(v["ply"], 2, "one engine move each: {v}");
}

#[tokio::test]
async fn the_engine_moves_and_a_finished_game_refuses_more() {
    let app = AppState::new(None);
    let g = new_game(&app, "bushka", Some("W:We1,e6,e7:Be4,e5")).await;
    let id = g["session"].as_str().unwrap();
    call(
        &app,
        "POST",
        "/api/move",
        Some(json!({"session": id, "move": "e12"})),
    )
    .await;
    let (s, v) = call(
        &app,
        "POST",
        "/api/engine",
        Some(json!({"session": id, "depth": 3})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["search"]["best"], "e5x3");
    assert_eq!(v["ply"], 2);
    assert!(v["search"]["info"]["depth"].as_u64().unwrap() >= 1);
    let (_, v) = call(
        &app,
        "POST",
        "/api/move",
        Some(json!({"session": id, "move": "e7x5"})),
    )
    .await;
    assert_eq!(
        (v["result"].as_str(), v["reason"].as_str()),
        (Some("1-0"), Some("no legal move"))
    );
    assert_eq!(v["legal"], json!([]));
    let (s, e) = call(
        &app,
        "POST",
        "/api/engine",
        Some(json!({"session": id, "movetime": 50})),
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(error_of(&e).contains("game is over"));
    let (s, e) = call(
        &app,
        "POST",
        "/api/move",
        Some(json!({"session": id, "move": "e12"})),
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
}

#[tokio::test]
async fn analysis_streams_iterations_and_ends() {
    let app = AppState::new(None);
    let g = new_game(&app, "bashnya", None).await;
    let id = g["session"].as_str().unwrap();
    let (s, v) = call(
        &app,
        "GET",
        &format!("/api/analyse?session={id}&depth=5"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let text = v.as_str().unwrap();
    let infos: Vec<Value> = text
        .lines()
        .zip(text.lines().skip(1))
        .filter(|(e, _)| *e == "event: info")
        .map(|(_, d)| serde_json::from_str(d.trim_start_matches("data: ")).unwrap())
        .collect();
    assert_eq!(infos.len(), 5, "{text}");
    assert_eq!(infos[4]["depth"], 5);
    assert!(!infos[4]["pv"].as_array().unwrap().is_empty());
    assert!(text.contains("event: done"));
    // Over, it is not stopped again.
    let (s, v) = call(&app, "POST", "/api/stop", Some(json!({"session": id}))).await;
    assert_eq!((s, v["stopped"].as_bool()), (StatusCode::OK, Some(false)));
}

/// A new Bushka game with an analysis streaming: its session, the open
/// stream, and the search's stop flag (not set while the stream is open).
async fn analysis_running(
    app: &Arc<AppState>,
) -> (
    String,
    axum::response::Response,
    Arc<std::sync::atomic::AtomicBool>,
) {
    let g = new_game(app, "bushka", None).await;
    let id = g["session"].as_str().unwrap().to_string();
    let req = Request::get(format!("/api/analyse?session={id}"))
        .body(Body::empty())
        .unwrap();
    let resp = router(Arc::clone(app)).oneshot(req).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let flag = app
        .sessions
        .with(&id, |s| Ok(Arc::clone(s.search.as_ref().unwrap())))
        .unwrap();
    assert!(
        !flag.load(Relaxed),
        "the analysis runs while its stream is open"
    );
    (id, resp, flag)
}

/// A stopping server (`Sessions::stop_all`, on Ctrl-C) stops every search
/// and answers any use of a session, a new game too, with a 503.
#[tokio::test]
async fn a_stopping_server_stops_searches_and_refuses_sessions() {
    let app = AppState::new(None);
    let (id, resp, flag) = analysis_running(&app).await;
    app.sessions.stop_all();
    assert!(flag.load(Relaxed), "the analysis is stopped");
    drop(resp);
    for (method, path, body) in [
        ("GET", format!("/api/state?session={id}"), None),
        (
            "POST",
            "/api/new".to_string(),
            Some(json!({"game": "bushka"})),
        ),
        (
            "POST",
            "/api/new".to_string(),
            Some(json!({"game": "bushka", "session": id})),
        ),
        (
            "POST",
            "/api/engine".to_string(),
            Some(json!({"session": id})),
        ),
    ] {
        let (s, v) = call(&app, method, &path, body).await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{path}: {v}");
        assert_eq!(error_of(&v), "the server is stopping");
    }
}

#[tokio::test]
async fn closing_the_analysis_stream_stops_the_search() {
    let app = AppState::new(None);
    let (id, resp, flag) = analysis_running(&app).await;
    drop(resp);
    assert!(flag.load(Relaxed), "dropping the stream stops the analysis");
    // A stop request stops a running analysis, and so does a new game in
    // the session, while the stream is still open.
    for how in ["/api/stop", "/api/new"] {
        let req = Request::get(format!("/api/analyse?session={id}"))
            .body(Body::empty())
            .unwrap();
        let resp = router(Arc::clone(&app)).oneshot(req).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        let flag = app
            .sessions
            .with(&id, |s| Ok(Arc::clone(s.search.as_ref().unwrap())))
            .unwrap();
        assert!(!flag.load(Relaxed), "{how}: the analysis runs");
        let body = if how == "/api/stop" {
            json!({"session": id})
        } else {
            json!({"session": id, "game": "bashnya"})
        };
        let (s, v) = call(&app, "POST", how, Some(body)).await;
        assert_eq!(s, StatusCode::OK, "{how}: {v}");
        if how == "/api/stop" {
            assert_eq!(v["stopped"].as_bool(), Some(true), "{v}");
        } else {
            assert_eq!(v["session"].as_str(), Some(id.as_str()), "{v}");
        }
        assert!(flag.load(Relaxed), "{how} stops the analysis");
        drop(resp);
    }
    // With no search left, a stop says so.
    let (s, v) = call(&app, "POST", "/api/stop", Some(json!({"session": id}))).await;
    assert_eq!((s, v["stopped"].as_bool()), (StatusCode::OK, Some(false)));
}

const TWO_GAMES: &str = r#"[Event "t"]
[White "alpha"]
[Black "beta"]
[Result "1-0"]
[GameType "bushka"]
[FEN "W:We1,e6,e7:Be4,e5"]

1. e12 e5x3 2. e7x5 1-0

[Event "t"]
[White "beta"]
[Black "alpha"]
[Result "1/2-1/2"]
[GameType "bashnya"]
[Termination "adjudicated draw"]

1. c3-d4 f6-e5 1/2-1/2

"#;

#[tokio::test]
async fn pdn_loads_opens_and_exports() {
    let app = AppState::new(None);
    let (s, v) = call(&app, "POST", "/api/pdn", Some(json!({"pdn": TWO_GAMES}))).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["session"].as_str().unwrap().to_string();
    assert_eq!(v["games"].as_array().unwrap().len(), 2);
    assert_eq!(v["games"][1]["white"], "beta");
    assert_eq!(
        (v["game"].as_str(), v["ply"].as_u64(), v["result"].as_str()),
        (Some("bushka"), Some(3), Some("1-0"))
    );
    let (_, svg) = call(&app, "GET", &format!("/api/svg?session={id}&ply=2"), None).await;
    let svg = svg.as_str().unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("class=\"cx\""),
        "the capture of ply 2 is marked"
    );
    let (_, v) = call(
        &app,
        "POST",
        "/api/pdn/open",
        Some(json!({"session": id, "index": 1})),
    )
    .await;
    assert_eq!(
        (v["game"].as_str(), v["ply"].as_u64()),
        (Some("bashnya"), Some(2))
    );
    assert_eq!(
        (v["result"].as_str(), v["reason"].as_str()),
        (Some("1/2-1/2"), Some("adjudicated draw"))
    );
    let (_, out) = call(&app, "GET", &format!("/api/pdn?session={id}"), None).await;
    let pdn = out["pdn"].as_str().unwrap();
    assert!(
        pdn.contains("[White \"beta\"]") && pdn.contains("1. c3-d4 f6-e5 1/2-1/2"),
        "{pdn}"
    );
    // A game with a comment longer than a line may be (written over many
    // lines) loads, and opens again.
    let long_note: String = (0..40_000)
        .map(|i| format!("note {i:05} of a long comment\n"))
        .collect();
    let commented = TWO_GAMES.replacen("e12 e5x3", &format!("e12 {{{long_note}}} e5x3"), 1);
    let (s, loaded) = call(&app, "POST", "/api/pdn", Some(json!({"pdn": commented}))).await;
    assert_eq!(s, StatusCode::OK, "{loaded}");
    let long_id = loaded["session"].as_str().unwrap().to_string();
    for index in [1, 0] {
        let (s, opened) = call(
            &app,
            "POST",
            "/api/pdn/open",
            Some(json!({"session": long_id, "index": index})),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{opened}");
    }
    // The exported text loads back to the same game.
    let (_, again) = call(
        &app,
        "POST",
        "/api/pdn",
        Some(json!({"session": id, "pdn": pdn})),
    )
    .await;
    assert_eq!(again["position"], v["position"]);
    // A game with an illegal move is named, and the next game opens.
    let bad = TWO_GAMES.replace("e7x5", "e7x4");
    let (s, v) = call(&app, "POST", "/api/pdn", Some(json!({"pdn": bad}))).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["game"].as_str(), Some("bashnya"));
    assert_eq!(v["games"].as_array().unwrap().len(), 2);
    assert_eq!(v["opened"], 1);
    let first = v["errors"][0].as_str().unwrap();
    assert!(first.starts_with("game 1: PDN game: ply 3 (e7x4)"), "{v}");
    // A game of an unknown type is named in one short line, its type quoted
    // (escaped and cut), and the next game opens.
    let odd_type = format!(
        "[GameType \"x\u{2028}{}\"]\n\n*\n\n{TWO_GAMES}",
        "y".repeat(500)
    );
    let (s, v) = call(&app, "POST", "/api/pdn", Some(json!({"pdn": odd_type}))).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["opened"], 1, "{v}");
    let first = v["errors"][0].as_str().unwrap();
    assert!(
        first.starts_with("game 1: PDN game type 'x\\u{2028}yyy"),
        "{first}"
    );
    assert!(first.len() < 120, "{first}");
    assert!(!first.contains(engine::files::LINE_BREAKS), "{first}");
    // When no game can be replayed, the first reason is given.
    let only_bad = &bad[..bad.find("[Event \"t\"]\n[White \"beta\"]").unwrap()];
    let (s, e) = call(&app, "POST", "/api/pdn", Some(json!({"pdn": only_bad}))).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        error_of(&e).contains("game 1: PDN game: ply 3 (e7x4)"),
        "{e}"
    );
    // A game played on after a threefold repetition, and one too long.
    let shuffle = "e12 a56 e21 a65 ".repeat(3);
    let repeated = format!("[FEN \"W:WKe1:BKa5\"]\n\n{shuffle}*\n");
    let (s, e) = call(&app, "POST", "/api/pdn", Some(json!({"pdn": repeated}))).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        error_of(&e).contains("ply 9 (e12): the game had already ended"),
        "{e}"
    );
    let long = format!("[FEN \"W:WKe1:BKa5\"]\n\n{}*\n", "e12 ".repeat(10_001));
    let (s, e) = call(&app, "POST", "/api/pdn", Some(json!({"pdn": long}))).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        error_of(&e).contains("10001 plies, more than the 10000"),
        "{e}"
    );
    // A game too long to replay is not kept beside one that replays.
    let both = format!("{long}\n[FEN \"W:WKe1:BKa5\"]\n\ne12 *\n");
    let (s, v) = call(&app, "POST", "/api/pdn", Some(json!({"pdn": both}))).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["games"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(
        v["errors"][0],
        "record 1: 10001 plies, more than the 10000 the board replays"
    );
}

#[tokio::test]
async fn stateless_pictures_of_either_game() {
    let app = AppState::new(None);
    let (s, v) = call(
        &app,
        "GET",
        "/api/svg?game=bashnya&position=W:a1%3DwbBb&flip=true",
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let svg = v.as_str().unwrap();
    assert_eq!(
        svg.matches("data-square=").count(),
        33,
        "32 squares and one column"
    );
    let (s, page) = call(&app, "GET", "/", None).await;
    assert_eq!(s, StatusCode::OK);
    assert!(page
        .as_str()
        .unwrap()
        .contains("<script type=\"module\" src=\"/app.js\">"));
}

#[tokio::test]
async fn watch_reads_the_tournament_as_it_grows() {
    let dir = tempfile::tempdir().unwrap();
    let pdn = dir.path().join("run.pdn");
    let summary = dir.path().join("run.json");
    std::fs::write(&pdn, TWO_GAMES).unwrap();
    let app = AppState::new(Some(web::watch::WatchFiles {
        pdn: pdn.clone(),
        summary: Some(summary.clone()),
    }));
    let (s, v) = call(&app, "GET", "/api/watch", None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["games"], 2);
    assert_eq!(v["summary"], Value::Null);
    assert_eq!(v["summary_error"], Value::Null, "not written yet: no error");
    let alpha = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "alpha")
        .unwrap();
    assert_eq!(alpha["wdl"], json!([1, 1, 0]));
    assert_eq!(alpha["score"], 0.75);
    assert_eq!(v["latest"][0]["index"], 1, "newest first");
    std::fs::write(&summary, r#"{"games": 3, "sprt": {"llr": 0.5, "lower": -2.94, "upper": 2.94, "status": "continue"}}"#).unwrap();
    let mut more = std::fs::OpenOptions::new().append(true).open(&pdn).unwrap();
    std::io::Write::write_all(
        &mut more,
        TWO_GAMES.split("\n\n[").next().unwrap().as_bytes(),
    )
    .unwrap();
    std::io::Write::write_all(&mut more, b"\n\n").unwrap();
    let (_, v) = call(&app, "GET", "/api/watch", None).await;
    assert_eq!(v["games"], 3);
    assert_eq!(v["summary"]["sprt"]["llr"], 0.5);
    let g = new_game(&app, "bashnya", None).await;
    let id = g["session"].as_str().unwrap();
    let (s, v) = open_watched(&app, id, 2).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (v["game"].as_str(), v["ply"].as_u64()),
        (Some("bushka"), Some(3))
    );
    let (s, e) = open_watched(&app, id, 7).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(error_of(&e).contains("no game 7"));
    // A game being written is no error, and shows once it reads.
    let first = TWO_GAMES.split("\n\n[").next().unwrap();
    let (head, rest) = first.split_at(first.find("[White").unwrap() + 10);
    let append = |text: &str| {
        let mut f = std::fs::OpenOptions::new().append(true).open(&pdn).unwrap();
        std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    };
    append(head);
    let (_, v) = call(&app, "GET", "/api/watch", None).await;
    assert_eq!(
        (v["games"].as_u64(), v["errors"].as_u64()),
        (Some(3), Some(0)),
        "{v}"
    );
    append(rest);
    let (_, v) = call(&app, "GET", "/api/watch", None).await;
    assert_eq!(
        (v["games"].as_u64(), v["errors"].as_u64()),
        (Some(4), Some(0)),
        "{v}"
    );
    append("\n\n");
    let (_, v) = call(&app, "GET", "/api/watch", None).await;
    assert_eq!(v["games"], 4, "{v}");
    // A file written anew (another run) is read from its start.
    std::fs::write(&pdn, TWO_GAMES.replace("alpha", "gamma")).unwrap();
    let (_, v) = call(&app, "GET", "/api/watch", None).await;
    assert_eq!(v["games"], 2, "{v}");
    let names: Vec<&str> = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"gamma") && !names.contains(&"alpha"),
        "{names:?}"
    );
    // A bad record appended is named by its line in the whole file.
    let lines_before = std::fs::read_to_string(&pdn).unwrap().lines().count();
    append("[Event \"broken]\n\n1. e12 *\n\n");
    let (_, v) = call(&app, "GET", "/api/watch", None).await;
    assert_eq!(v["errors"], 1, "{v}");
    let first = v["first_error"].as_str().unwrap();
    assert!(
        first.starts_with(&format!("line {}:", lines_before + 1)),
        "{first} (the file had {lines_before} lines)"
    );
    // A summary that does not read is named.
    std::fs::write(&summary, "{\"games\": 3,").unwrap();
    let (_, v) = call(&app, "GET", "/api/watch", None).await;
    assert_eq!(v["summary"], Value::Null);
    let why = v["summary_error"].as_str().unwrap();
    assert!(why.starts_with("the summary run.json is not JSON"), "{why}");
    // A watched file that cannot be read (removed) is the server's trouble
    // for both routes: a 503 naming it.
    std::fs::remove_file(&pdn).unwrap();
    let (s, v) = call(&app, "GET", "/api/watch", None).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    let (s, e) = open_watched(&app, id, 0).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{e}");
    assert!(
        error_of(&e).starts_with("cannot read the watched file: "),
        "{e}"
    );
}

#[tokio::test]
async fn idle_sessions_end_and_their_searches_stop() {
    let app = AppState::new(None);
    let g = new_game(&app, "bushka", None).await;
    let id = g["session"].as_str().unwrap().to_string();
    let flag = app.sessions.with(&id, |s| Ok(s.new_search())).unwrap();
    assert_eq!(app.sessions.sweep(std::time::Duration::from_secs(3600)), 0);
    assert_eq!(app.sessions.sweep(std::time::Duration::ZERO), 1);
    assert!(flag.load(Relaxed));
    let (s, _) = call(&app, "GET", &format!("/api/state?session={id}"), None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

/// The committed inputs of the `web_api` fuzz target (`fuzz/corpus/web_api`)
/// through the same checks, read the same way (`fuzz_input.rs`): never a
/// 5xx, every refusal a one-line JSON error, searches and sequences of
/// requests on one session included.
#[tokio::test]
async fn the_fuzz_corpus_is_answered_properly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/web_api");
    let tmp = tempfile::tempdir().unwrap();
    let watch = web::watch::WatchFiles {
        pdn: tmp.path().join("run.pdn"),
        summary: Some(tmp.path().join("run.json")),
    };
    // What the committed sequences must do: each step's status (a refusal
    // written as 400, whatever its 4xx), so that a sequence that stopped
    // reaching its game would be seen.
    let expected: &[(&str, &[u16])] = &[
        // A PDN of two games loaded, the second (index 1) opened, undone to
        // its start, exported; an eighth game (index 7) refused.
        ("seq_pdn_open_undo", &[200, 200, 200, 200, 400]),
        // A move, the engine's reply, an undo, an undo to a ply not
        // reached, a picture of ply 1, the state, a stop.
        (
            "seq_moves_undo_engine",
            &[200, 200, 200, 400, 200, 200, 200],
        ),
        // Half a game, then two, the second (index 1) opened; emptied, then
        // the same refused.
        ("seq_watch_grows", &[200, 200, 200, 200, 400]),
    ];
    let (mut files, mut searches, mut watched, mut sequences) = (0, 0, 0, 0);
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // As in the fuzz target: the watched files empty at the start.
        std::fs::write(&watch.pdn, "").unwrap();
        std::fs::write(watch.summary.as_ref().unwrap(), "").unwrap();
        let app = AppState::new(Some(watch.clone()));
        let g = new_game(&app, "bushka", None).await;
        let id = g["session"].as_str().unwrap();
        let inputs = crate::fuzz_input::read_inputs(text, id);
        files += usize::from(!inputs.is_empty());
        sequences += usize::from(inputs.len() > 1);
        let mut statuses = Vec::new();
        for input in inputs {
            if let Some(text) = &input.watched {
                std::fs::write(&watch.pdn, text).unwrap();
                std::fs::write(watch.summary.as_ref().unwrap(), text).unwrap();
                watched += 1;
            }
            let path = input.uri.split('?').next().unwrap_or("").to_string();
            searches += usize::from(path == "/api/engine" || path == "/api/analyse");
            // As the board sends them: bodies declared JSON.
            let Ok(req) = Request::builder()
                .method(input.method.as_str())
                .uri(input.uri.as_str())
                .header("content-type", "application/json")
                .body(Body::from(input.body))
            else {
                continue;
            };
            let (status, v) = raw(&app, req).await;
            assert!(
                status.as_u16() < 500,
                "{} {}: {status} {v}",
                input.method,
                input.uri
            );
            if status.as_u16() >= 400 && !input.method.eq_ignore_ascii_case("HEAD") {
                let e = error_of(&v);
                assert!(!e.is_empty() && !e.contains(['\n', '\r']), "{v}");
            }
            statuses.push(if status.is_client_error() {
                400
            } else {
                status.as_u16()
            });
        }
        if let Some((_, want)) = expected.iter().find(|(n, _)| *n == name) {
            assert_eq!(&statuses, want, "{name}");
            checked += 1;
        }
    }
    assert!(files >= 15, "only {files} corpus inputs");
    assert_eq!(checked, expected.len(), "a committed sequence is missing");
    assert!(
        searches >= 2 && watched >= 2 && sequences >= 3,
        "{searches} searches, {watched} watched, {sequences} sequences"
    );
}

/// The analysis of a position of the game other than the last (the page's
/// replay): the search starts from the position after `ply` plies, with a
/// ply past the end refused before any running search is stopped.
#[tokio::test]
async fn analysis_searches_the_ply_asked_for() {
    let app = AppState::new(None);
    let g = new_game(&app, "bashnya", None).await;
    let id = g["session"].as_str().unwrap().to_string();
    for mv in ["c3-d4", "f6-e5"] {
        let (s, v) = call(
            &app,
            "POST",
            "/api/move",
            Some(json!({"session": id, "move": mv})),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    // After ply 1 Black is to move, after ply 2 White must capture.
    for (ply, first_moves) in [(1, vec!["f6-e5"]), (2, vec!["d4:f6"])] {
        let (s, v) = call(
            &app,
            "GET",
            &format!("/api/analyse?session={id}&ply={ply}&depth=3"),
            None,
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let text = v.as_str().unwrap();
        let pv: Vec<Value> = text
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str::<Value>(d).ok())
            .filter(|d| d.get("pv").is_some())
            .collect();
        let first = pv.last().unwrap()["pv"][0].as_str().unwrap().to_string();
        if ply == 2 {
            assert!(first_moves.contains(&first.as_str()), "{first}");
        } else {
            // Any Black move: it is not one of White's.
            let black: Vec<String> = {
                let mut p = bashnya::Position::start();
                p = p.play(&p.parse_move("c3-d4").unwrap());
                let mut list = engine::MoveList::new();
                p.generate(&mut list);
                list.iter().map(|m| p.move_text(m)).collect()
            };
            assert!(black.contains(&first), "{first} is not Black's");
        }
    }
    let (s, e) = call(
        &app,
        "GET",
        &format!("/api/analyse?session={id}&ply=3"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(error_of(&e), "no ply 3: the game has 2 plies");
}

/// A game read from PDN keeps its players once changed, but not the tags
/// that told how it ended: the export of a changed game does not claim the
/// old termination.
#[tokio::test]
async fn a_changed_game_drops_the_tags_of_its_ending() {
    let app = AppState::new(None);
    let pdn = TWO_GAMES.replace(
        "[Termination \"adjudicated draw\"]",
        "[Termination \"adjudicated draw\"]\n[WhiteClock \"0:00:10\"]\n[Opening \"3\"]",
    );
    let (s, v) = call(&app, "POST", "/api/pdn", Some(json!({"pdn": pdn}))).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["session"].as_str().unwrap().to_string();
    let (_, v) = call(
        &app,
        "POST",
        "/api/pdn/open",
        Some(json!({"session": id, "index": 1})),
    )
    .await;
    let tags = |v: &Value| -> Vec<String> {
        v["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t[0].as_str().unwrap().to_string())
            .collect()
    };
    assert!(tags(&v).contains(&"Termination".to_string()), "{v}");
    let (s, v) = call(
        &app,
        "POST",
        "/api/undo",
        Some(json!({"session": id, "to_ply": 1})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let kept = tags(&v);
    assert!(
        !kept.contains(&"Termination".to_string()) && !kept.contains(&"WhiteClock".to_string()),
        "{kept:?}"
    );
    assert!(kept.contains(&"Opening".to_string()) && kept.contains(&"White".to_string()));
    assert_eq!(v["result"], Value::Null);
    let (_, out) = call(&app, "GET", &format!("/api/pdn?session={id}"), None).await;
    let text = out["pdn"].as_str().unwrap();
    assert!(
        !text.contains("Termination") && text.contains("[White \"beta\"]"),
        "{text}"
    );
}

/// A watched game opened for a session that has ended (a tab left watching
/// longer than sessions are kept) opens in a new session.
#[tokio::test]
async fn a_watched_game_opens_for_a_session_that_ended() {
    let dir = tempfile::tempdir().unwrap();
    let pdn = dir.path().join("run.pdn");
    std::fs::write(&pdn, TWO_GAMES).unwrap();
    let app = AppState::new(Some(web::watch::WatchFiles { pdn, summary: None }));
    let (s, v) = open_watched(&app, "0123456789abcdef0123456789abcdef", 1).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["session"].as_str().unwrap();
    assert_ne!(id, "0123456789abcdef0123456789abcdef");
    assert_eq!(
        (v["game"].as_str(), v["ply"].as_u64()),
        (Some("bashnya"), Some(2))
    );
    let (s, _) = call(&app, "GET", &format!("/api/state?session={id}"), None).await;
    assert_eq!(s, StatusCode::OK);
}

/// A Bushka piece that takes two pieces lands twice: the page is given both
/// landing squares, so the capture can be clicked square by square.
#[tokio::test]
async fn a_bushka_double_capture_carries_both_landing_squares() {
    let app = AppState::new(None);
    let g = new_game(&app, "bushka", Some("W:Wg3:Be3,f5")).await;
    let legal = g["legal"].as_array().unwrap();
    let double = legal
        .iter()
        .find(|m| m["captured"].as_array().unwrap().len() == 2)
        .unwrap_or_else(|| panic!("no double capture in {legal:?}"));
    // g3 steps to f3 towards e3 and takes it, then to f4 towards f5.
    assert_eq!(double["text"], "g3f4x");
    assert_eq!(double["path"], json!(["f3", "f4"]));
    assert_eq!(double["captured"], json!(["e3", "f5"]));
}

/// PDN texts are read two at a time: a third while two are being read is
/// answered 503, and is read once one is done.
#[tokio::test]
async fn a_pdn_load_past_the_limit_is_refused_for_now() {
    let app = AppState::new(None);
    let id = new_game(&app, "bushka", None).await["session"]
        .as_str()
        .unwrap()
        .to_string();
    let pdn = "[Result \"*\"]\n\n1. ig6 *\n";
    let load = |app: Arc<AppState>, id: String| async move {
        call(
            &app,
            "POST",
            "/api/pdn",
            Some(json!({"session": id, "pdn": pdn})),
        )
        .await
    };
    let held = app
        .pdn_loads
        .acquire_many(web::PDN_LOADS as u32)
        .await
        .unwrap();
    let (status, v) = load(Arc::clone(&app), id.clone()).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    assert!(
        error_of(&v).contains("PDN texts are being read already"),
        "{v}"
    );
    // Refused before its text is read: a body still being sent (here one
    // that never ends) is answered at once, its text never held.
    let answer = tokio::time::timeout(std::time::Duration::from_secs(10), raw(&app, endless_pdn()));
    let (status, v) = answer.await.expect("the refusal waited for the body");
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    drop(held);
    let (status, v) = load(Arc::clone(&app), id).await;
    assert_eq!(status, StatusCode::OK, "{v}");
}

/// A `POST /api/pdn` whose body never ends (a client that stalls).
fn endless_pdn() -> Request<Body> {
    let endless = tokio_stream::pending::<Result<axum::body::Bytes, std::io::Error>>();
    Request::builder()
        .method("POST")
        .uri("/api/pdn")
        .header("content-type", "application/json")
        .body(Body::from_stream(endless))
        .unwrap()
}

/// A body that stalls once its reading has a place gives the place back
/// after `BODY_TIME` with a 408 (the clock is the test's own: no wait).
#[tokio::test(start_paused = true)]
async fn a_pdn_body_that_stalls_gives_its_place_back() {
    let app = AppState::new(None);
    let (status, v) = raw(&app, endless_pdn()).await;
    assert_eq!(status, StatusCode::REQUEST_TIMEOUT, "{v}");
    assert!(error_of(&v).contains("did not arrive within 30 s"), "{v}");
    assert_eq!(app.pdn_loads.available_permits(), web::PDN_LOADS);
}

/// A PDN text's reading keeps its place among the two until it ends, even
/// when the client that sent it hangs up (the request's task is dropped).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pdn_reading_keeps_its_place_after_its_client_hangs_up() {
    let app = AppState::new(None);
    let held = app.pdn_loads.acquire().await.unwrap();
    // A large text: 10,000 games (the most read) of 120 plies, 7.6 MB,
    // read for about two seconds in a test build (each game read, written
    // and read back): far longer than the steps below take.
    let moves: String = (1..=60).map(|n| format!("{n}. ig6 ef8 ")).collect();
    let long = format!("[Event \"t\"]\n[Result \"*\"]\n\n{moves}*\n\n");
    let pdn = long.repeat(10_000);
    let game = "[Event \"t\"]\n[Result \"*\"]\n\n1. ig6 *\n\n";
    let request = tokio::spawn({
        let app = Arc::clone(&app);
        async move { call(&app, "POST", "/api/pdn", Some(json!({ "pdn": pdn }))).await }
    });
    while app.pdn_loads.available_permits() > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    request.abort();
    assert!(request.await.unwrap_err().is_cancelled());
    // The reading goes on, and holds the place it took.
    assert_eq!(app.pdn_loads.available_permits(), 0);
    let (status, v) = call(&app, "POST", "/api/pdn", Some(json!({ "pdn": game }))).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    // It gives the place back when it ends.
    drop(held);
    let start = std::time::Instant::now();
    while app.pdn_loads.available_permits() < web::PDN_LOADS {
        assert!(start.elapsed().as_secs() < 120, "the reading never ended");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
