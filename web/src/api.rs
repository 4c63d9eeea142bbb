//! The HTTP routes: the embedded page and the JSON API (docs/web.md).

use crate::sessions::{new_table, Session};
use crate::svg::{self, SvgOptions};
use crate::table::{self, GameState, InfoView, SearchOutcome};
use crate::watch::GameLine;
use crate::{ApiError, AppState};
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, FromRequest, Query, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use engine::search::Limits;
use engine::{Game, GameKind};
use selfplay::pdn::PdnReader;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::StreamExt as _;

/// Largest request body: a PDN file of a few thousand games.
pub const MAX_BODY: usize = 8 * 1024 * 1024;
/// Deepest engine move or analysis asked for.
pub const MAX_DEPTH: u32 = 40;
/// Longest engine move asked for, in milliseconds.
pub const MAX_MOVETIME_MS: u64 = 60_000;
/// Longest analysis, in milliseconds (it also stops with its tab).
pub const MAX_ANALYSIS_MS: u64 = 10 * 60 * 1000;
/// Games read from one PDN text.
pub const MAX_PDN_GAMES: usize = 10_000;
/// The longest a PDN text's body may take to arrive once its reading has
/// its place (a 408 after): a stalled upload keeps no place for ever.
pub const BODY_TIME: Duration = Duration::from_secs(30);

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const BOARD_JS: &str = include_str!("../assets/board.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");

/// The whole application: page files and API.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript", APP_JS) }),
        )
        .route(
            "/board.js",
            get(|| async { asset("text/javascript", BOARD_JS) }),
        )
        .route("/style.css", get(|| async { asset("text/css", STYLE_CSS) }))
        .route("/api/config", get(config))
        .route("/api/new", post(new_game))
        .route("/api/state", get(state_of))
        .route("/api/move", post(play))
        .route("/api/undo", post(undo))
        .route("/api/engine", post(engine_move))
        .route("/api/analyse", get(analyse))
        .route("/api/stop", post(stop))
        .route("/api/svg", get(svg_of))
        .route("/api/pdn", get(export_pdn).post(load_pdn))
        .route("/api/pdn/open", post(open_pdn))
        .route("/api/watch", get(watch))
        .route("/api/watch/open", post(open_watched))
        .fallback(|| async { ApiError::not_found("no such page or API route") })
        .method_not_allowed_fallback(|method: axum::http::Method| async move {
            ApiError {
                status: StatusCode::METHOD_NOT_ALLOWED,
                message: format!("{method} is not allowed on this route (see docs/web.md)"),
            }
        })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            guard,
        ))
        .with_state(state)
}

/// Refuses what a page of another web site could make the browser send: on a
/// loopback server, a request naming another host (DNS rebinding), and a POST
/// whose body is not declared JSON (only such a POST can be sent across sites
/// without the browser first asking the server, which grants nothing).
async fn guard(
    State(app): Shared,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if app.local_only {
        let host = req
            .headers()
            .get(header::HOST)
            .map(|h| h.to_str().unwrap_or("?"));
        if let Some(host) = host.filter(|h| !crate::is_loopback_host(h)) {
            return ApiError {
                status: StatusCode::FORBIDDEN,
                message: format!(
                    "Host '{host}' is not this server's: it serves localhost only \
                     (bushka serve --host to serve other names)"
                ),
            }
            .into_response();
        }
    }
    if req.method() == axum::http::Method::POST {
        let json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return ApiError {
                status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
                message: "a POST body must be sent as 'content-type: application/json'".into(),
            }
            .into_response();
        }
    }
    next.run(req).await
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

type Shared = State<Arc<AppState>>;

/// Reads a JSON body, naming what is wrong with it.
fn body<T: DeserializeOwned>(raw: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = raw.map_err(|e| ApiError {
        status: e.status(),
        message: format!("request body: {}", e.body_text()),
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::bad(match e.classify() {
            serde_json::error::Category::Data => format!("request body: {e}"),
            _ => format!("request body is not valid JSON: {e}"),
        })
    })
}

/// Reads the query string, naming what is wrong with it.
fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(t)| t)
        .map_err(|e| ApiError::bad(format!("query: {}", e.body_text())))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionOnly {
    session: String,
}

#[derive(Serialize)]
struct StateReply {
    session: String,
    #[serde(flatten)]
    state: GameState,
}

fn reply(session: &str, s: &Session) -> Json<StateReply> {
    Json(StateReply {
        session: session.to_string(),
        state: s.table.state(),
    })
}

async fn config(State(app): Shared) -> Json<serde_json::Value> {
    Json(serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "watch": app.watch.is_some(),
        "max_depth": MAX_DEPTH,
        "max_movetime_ms": MAX_MOVETIME_MS,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    session: Option<String>,
    game: String,
    position: Option<String>,
}

async fn new_game(
    State(app): Shared,
    raw: Result<Bytes, BytesRejection>,
) -> Result<Json<StateReply>, ApiError> {
    let req: NewGame = body(raw)?;
    let table = new_table(&req.game, req.position.as_deref())?;
    let id = app.sessions.put(req.session.as_deref(), table)?;
    app.sessions.with(&id, |s| Ok(reply(&id, s)))
}

async fn state_of(
    State(app): Shared,
    q: Result<Query<SessionOnly>, QueryRejection>,
) -> Result<Json<StateReply>, ApiError> {
    let q = query(q)?;
    app.sessions.with(&q.session, |s| Ok(reply(&q.session, s)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayMove {
    session: String,
    #[serde(rename = "move")]
    text: String,
}

async fn play(
    State(app): Shared,
    raw: Result<Bytes, BytesRejection>,
) -> Result<Json<StateReply>, ApiError> {
    let req: PlayMove = body(raw)?;
    app.sessions.with(&req.session, |s| {
        s.table.play(&req.text)?;
        s.changed();
        Ok(reply(&req.session, s))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Undo {
    session: String,
    /// Go back to this many plies; without it, one ply back.
    to_ply: Option<usize>,
}

async fn undo(
    State(app): Shared,
    raw: Result<Bytes, BytesRejection>,
) -> Result<Json<StateReply>, ApiError> {
    let req: Undo = body(raw)?;
    app.sessions.with(&req.session, |s| {
        let ply = s.table.ply();
        let to = match req.to_ply {
            Some(p) => p,
            None => ply
                .checked_sub(1)
                .ok_or_else(|| ApiError::conflict("nothing to undo: no move has been played"))?,
        };
        s.table.undo_to(to)?;
        s.changed();
        Ok(reply(&req.session, s))
    })
}

/// How long or deep a search may go, as a request gives it.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SearchLimits {
    session: String,
    depth: Option<u32>,
    movetime: Option<u64>,
}

impl SearchLimits {
    /// The limits, checked; `default_ms` when neither is given.
    fn limits(&self, default_ms: u64, max_ms: u64) -> Result<Limits, ApiError> {
        if let Some(d) = self.depth {
            if !(1..=MAX_DEPTH).contains(&d) {
                return Err(ApiError::bad(format!(
                    "depth {d} is out of range: 1 to {MAX_DEPTH}"
                )));
            }
        }
        if let Some(t) = self.movetime {
            if !(1..=max_ms).contains(&t) {
                return Err(ApiError::bad(format!(
                    "movetime {t} ms is out of range: 1 to {max_ms}"
                )));
            }
        }
        let movetime = match (self.depth, self.movetime) {
            (None, None) => Some(default_ms),
            // A depth alone is still bounded in time.
            (Some(_), None) => Some(max_ms),
            (_, t) => t,
        };
        Ok(Limits {
            depth: self.depth,
            movetime: movetime.map(Duration::from_millis),
            ..Limits::default()
        })
    }
}

/// Sets its flag when dropped: a search ends with the request or stream that wanted it.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Relaxed);
    }
}

#[derive(Serialize)]
struct EngineReply {
    session: String,
    #[serde(flatten)]
    state: GameState,
    search: SearchOutcome,
}

async fn engine_move(
    State(app): Shared,
    raw: Result<Bytes, BytesRejection>,
) -> Result<Json<EngineReply>, ApiError> {
    let req: SearchLimits = body(raw)?;
    let limits = req.limits(1000, MAX_MOVETIME_MS)?;
    let (setup, version, stop) = app.sessions.with(&req.session, |s| {
        if s.table.state().legal.is_empty() {
            return Err(ApiError::conflict(
                "the game is over: the engine has no move to make",
            ));
        }
        let stop = s.new_search();
        let setup = s.table.search(None, limits, Arc::clone(&stop))?;
        Ok((setup, s.version, stop))
    })?;
    let guard = StopOnDrop(stop);
    let outcome = tokio::task::spawn_blocking(move || setup().map(|job| job(&mut |_| {})))
        .await
        .map_err(|e| ApiError::internal(format!("the search failed: {e}")))??;
    let stopped = guard.0.load(Relaxed);
    drop(guard);
    app.sessions.with(&req.session, |s| {
        // Stopped by `/api/stop` (no search of the session left), the engine
        // plays the best move found so far ("move now"); replaced by another
        // search, or with the game changed, it plays nothing.
        let replaced = stopped && s.search.is_some();
        if s.version != version || replaced {
            return Err(ApiError::conflict(
                "the game changed or another search began before the engine moved",
            ));
        }
        let best = outcome
            .best
            .clone()
            .ok_or_else(|| ApiError::conflict("the engine found no move"))?;
        s.table.play(&best)?;
        s.changed();
        Ok(Json(EngineReply {
            session: req.session.clone(),
            state: s.table.state(),
            search: outcome,
        }))
    })
}

/// An analysis request: the limits of a search, and the ply whose position
/// it searches (the position now without it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseQuery {
    session: String,
    depth: Option<u32>,
    movetime: Option<u64>,
    ply: Option<usize>,
}

async fn analyse(
    State(app): Shared,
    q: Result<Query<AnalyseQuery>, QueryRejection>,
) -> Result<Sse<impl tokio_stream::Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let q = query(q)?;
    let req = SearchLimits {
        session: q.session,
        depth: q.depth,
        movetime: q.movetime,
    };
    let mut limits = req.limits(MAX_ANALYSIS_MS, MAX_ANALYSIS_MS)?;
    if req.movetime.is_none() {
        limits.movetime = Some(Duration::from_millis(MAX_ANALYSIS_MS));
    }
    let (setup, stop) = app.sessions.with(&req.session, |s| {
        // Checked before the running search is stopped: a bad ply stops nothing.
        if let Some(p) = q.ply.filter(|&p| p > s.table.ply()) {
            return Err(ApiError::bad(format!(
                "no ply {p}: the game has {} plies",
                s.table.ply()
            )));
        }
        let stop = s.new_search();
        Ok((s.table.search(q.ply, limits, Arc::clone(&stop))?, stop))
    })?;
    // From here the search ends with this request: a failed setup or a
    // closed tab leaves no search counted as running.
    let guard = StopOnDrop(stop);
    let job = tokio::task::spawn_blocking(setup)
        .await
        .map_err(|e| ApiError::internal(format!("the search failed: {e}")))??;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let finished = Arc::clone(&guard.0);
    tokio::task::spawn_blocking(move || {
        let info_tx = tx.clone();
        let outcome = job(&mut |info: InfoView| {
            let _ = info_tx.send(json_event("info", &info));
        });
        // Over before `done` is sent: `/api/stop` then finds nothing running.
        finished.store(true, Relaxed);
        let _ = tx.send(json_event("done", &outcome));
    });
    let stream = UnboundedReceiverStream::new(rx).map(move |e| {
        // The guard lives as long as the stream: a closed tab stops the search.
        let _alive = &guard;
        Ok(e)
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

fn json_event<T: Serialize>(name: &str, value: &T) -> Event {
    Event::default()
        .event(name)
        .data(serde_json::to_string(value).unwrap_or_else(|_| "{}".into()))
}

async fn stop(
    State(app): Shared,
    raw: Result<Bytes, BytesRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let req: SessionOnly = body(raw)?;
    app.sessions.with(&req.session, |s| {
        // A search that ended (its flag set) is not running.
        let running = s.search.as_ref().is_some_and(|f| !f.load(Relaxed));
        s.stop_search();
        Ok(Json(serde_json::json!({ "stopped": running })))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SvgQuery {
    session: Option<String>,
    ply: Option<usize>,
    game: Option<String>,
    position: Option<String>,
    #[serde(default)]
    flip: bool,
}

async fn svg_of(
    State(app): Shared,
    q: Result<Query<SvgQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let q = query(q)?;
    let picture = match (&q.session, &q.game) {
        (Some(id), None) => app.sessions.with(id, |s| {
            let ply = q.ply.unwrap_or_else(|| s.table.ply());
            s.table.svg(ply, q.flip)
        })?,
        (None, Some(game)) => {
            let kind: GameKind = game.parse().map_err(ApiError::bad)?;
            let text = q.position.as_deref().unwrap_or("start");
            engine::with_game!(kind, G => render_text::<G>(text, q.flip)?)
        }
        _ => {
            return Err(ApiError::bad(
                "give either session (and ply) or game (and position)",
            ))
        }
    };
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], picture).into_response())
}

fn render_text<G: Game + crate::view::Drawable>(
    text: &str,
    flip: bool,
) -> Result<String, ApiError> {
    let pos = if text.trim() == "start" {
        G::start()
    } else {
        G::parse_position(text).map_err(|e| ApiError::bad(format!("position text: {e}")))?
    };
    Ok(svg::render(
        &pos.board_view(),
        &SvgOptions {
            flip,
            ..SvgOptions::default()
        },
    ))
}

async fn export_pdn(
    State(app): Shared,
    q: Result<Query<SessionOnly>, QueryRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let q = query(q)?;
    app.sessions.with(&q.session, |s| {
        Ok(Json(serde_json::json!({ "pdn": s.table.pdn() })))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoadPdn {
    session: Option<String>,
    pdn: String,
}

#[derive(Serialize)]
struct PdnReply {
    session: String,
    games: Vec<GameLine>,
    /// The index of the game opened: the first that replays.
    opened: usize,
    errors: Vec<String>,
    #[serde(flatten)]
    state: GameState,
}

/// A PDN text read: the games kept (each as its PDN text without move
/// comments), their list, the first that replays, and the errors to show.
struct LoadedPdn {
    texts: Vec<String>,
    lines: Vec<GameLine>,
    opened: usize,
    table: Box<dyn table::Table>,
    errors: Vec<String>,
}

/// Reads a PDN text and replays its first game the rules accept.
fn read_pdn(text: &str) -> Result<LoadedPdn, ApiError> {
    // Each game kept with its text: without the move comments (the board
    // shows none), and read back once here so that opening it later
    // cannot fail.
    let mut games = Vec::new();
    let mut errors = Vec::new();
    for (i, rec) in PdnReader::new(text.as_bytes())
        .take(MAX_PDN_GAMES)
        .enumerate()
    {
        match rec {
            // Not kept: the board would not replay it.
            Ok(r) if r.moves.len() > table::MAX_GAME_PLIES => errors.push(format!(
                "record {}: {} plies, more than the {} the board replays",
                i + 1,
                r.moves.len(),
                table::MAX_GAME_PLIES
            )),
            Ok(mut r) => {
                r.comments.clear();
                let kept = r.to_pdn();
                match PdnReader::new(kept.as_bytes()).next() {
                    Some(Ok(_)) => games.push((r, kept)),
                    _ => errors.push(format!(
                        "record {}: does not read back once written (a tag too long)",
                        i + 1
                    )),
                }
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    if games.is_empty() {
        return Err(ApiError::bad(match errors.first() {
            Some(e) => format!("no game in the PDN text: {e}"),
            None => "no game in the PDN text".to_string(),
        }));
    }
    // The first game the rules can replay opens; those before it that they
    // cannot are named (the others are replayed when opened).
    let mut table = None;
    let mut refused = Vec::new();
    for (i, (rec, _)) in games.iter().enumerate() {
        match table::table_of_record(rec) {
            Ok(t) => {
                table = Some((i, t));
                break;
            }
            Err(e) => refused.push(format!("game {}: {}", i + 1, e.message)),
        }
    }
    let Some((opened, table)) = table else {
        return Err(ApiError::bad(format!(
            "no game in the PDN text can be replayed: {}",
            refused[0]
        )));
    };
    refused.extend(errors);
    refused.truncate(20);
    Ok(LoadedPdn {
        lines: games
            .iter()
            .enumerate()
            .map(|(i, (r, _))| GameLine::of(i, r))
            .collect(),
        texts: games.into_iter().map(|(_, text)| text).collect(),
        opened,
        table,
        errors: refused,
    })
}

async fn load_pdn(
    State(app): Shared,
    request: axum::extract::Request,
) -> Result<Json<PdnReply>, ApiError> {
    // The permit is taken before the body is read (a request refused holds
    // none of its text), and goes with the reading, not with this request:
    // a client that hangs up once its text is sent does not end the
    // reading it started.
    let Ok(reading) = Arc::clone(&app.pdn_loads).try_acquire_owned() else {
        return Err(ApiError::unavailable(format!(
            "{} PDN texts are being read already; send this one again when they are done",
            crate::PDN_LOADS
        )));
    };
    // A body that stalls would keep its permit: it has a while to arrive.
    let raw = tokio::time::timeout(BODY_TIME, Bytes::from_request(request, &()))
        .await
        .map_err(|_| ApiError {
            status: StatusCode::REQUEST_TIMEOUT,
            message: format!(
                "the PDN text did not arrive within {} s",
                BODY_TIME.as_secs()
            ),
        })?;
    // Reading and replaying take a while on a large text: off the async
    // threads.
    let loaded = tokio::task::spawn_blocking(move || {
        let _reading = reading;
        let req: LoadPdn = body(raw)?;
        read_pdn(&req.pdn).map(|l| (req.session, l))
    })
    .await
    .map_err(|e| ApiError::internal(format!("reading the PDN text failed: {e}")))??;
    let (session, loaded) = loaded;
    let texts = Arc::new(loaded.texts);
    // The game and its list together: a load at the same moment on the
    // same session cannot leave one's game beside the other's list.
    app.sessions
        .put_with(session.as_deref(), loaded.table, |id, s| {
            s.loaded = texts;
            Ok(Json(PdnReply {
                session: id.to_string(),
                games: loaded.lines,
                opened: loaded.opened,
                errors: loaded.errors,
                state: s.table.state(),
            }))
        })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenGame {
    session: String,
    index: usize,
}

async fn open_pdn(
    State(app): Shared,
    raw: Result<Bytes, BytesRejection>,
) -> Result<Json<StateReply>, ApiError> {
    let req: OpenGame = body(raw)?;
    let (text, list) = app.sessions.with(&req.session, |s| {
        let text = s.loaded.get(req.index).cloned().ok_or_else(|| {
            ApiError::bad(format!(
                "no game {} in the PDN loaded ({} games)",
                req.index,
                s.loaded.len()
            ))
        })?;
        Ok((text, Arc::clone(&s.loaded)))
    })?;
    // Replayed off the async threads, and without holding the sessions.
    let table = tokio::task::spawn_blocking(move || {
        let rec = PdnReader::new(text.as_bytes())
            .next()
            .and_then(Result::ok)
            .ok_or_else(|| ApiError::internal("a game kept from the PDN text no longer reads"))?;
        table::table_of_record(&rec)
    })
    .await
    .map_err(|e| ApiError::internal(format!("replaying the game failed: {e}")))??;
    app.sessions.with(&req.session, |s| {
        if !Arc::ptr_eq(&s.loaded, &list) {
            return Err(ApiError::conflict(format!(
                "another PDN text was loaded while game {} was being opened: open one of its games",
                req.index
            )));
        }
        s.set_table(table);
        Ok(reply(&req.session, s))
    })
}

fn watcher(app: &AppState) -> Result<&crate::watch::Watcher, ApiError> {
    app.watch.as_ref().ok_or_else(|| {
        ApiError::not_found("nothing is watched: start the server with --watch run.pdn")
    })
}

async fn watch(State(app): Shared) -> Result<Response, ApiError> {
    let app2 = Arc::clone(&app);
    let view = tokio::task::spawn_blocking(move || watcher(&app2).map(crate::watch::Watcher::view))
        .await
        .map_err(|e| ApiError::internal(format!("reading the watched files failed: {e}")))??;
    match view {
        Ok(v) => Ok(Json(v).into_response()),
        Err(e) => Ok((
            StatusCode::SERVICE_UNAVAILABLE,
            Json(serde_json::json!({ "error": format!("cannot read the watched file: {e}") })),
        )
            .into_response()),
    }
}

async fn open_watched(
    State(app): Shared,
    raw: Result<Bytes, BytesRejection>,
) -> Result<Json<StateReply>, ApiError> {
    let req: OpenGame = body(raw)?;
    // Reading the file and replaying the game block: off the async threads.
    let app2 = Arc::clone(&app);
    let index = req.index;
    let table = tokio::task::spawn_blocking(move || {
        let rec = watcher(&app2)?
            .game(index)
            .map_err(|e| ApiError::unavailable(format!("cannot read the watched file: {e}")))?
            .map_err(|games| {
                ApiError::bad(format!(
                    "no game {index} in the watched file ({games} games)"
                ))
            })?;
        table::table_of_record(&rec)
    })
    .await
    .map_err(|e| ApiError::internal(format!("reading the watched file failed: {e}")))??;
    // A session that ended (a tab left watching for longer than sessions
    // are kept) gets a new one, as `/api/new` gives.
    let id = app.sessions.put(Some(&req.session), table)?;
    app.sessions.with(&id, |s| Ok(reply(&id, s)))
}
