//! Game clocks: the time control of an engine description (`tc=BASE+INC`,
//! `tc=MOVES/BASE+INC`) and the clock the harness keeps for each side.

use crate::pdn::GameRecord as PdnRecord;
use engine::search::{Clock, Score};
use engine::Color;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A time control: `base` for the first `moves` moves (or the whole game),
/// `inc` added after every move. With `moves`, `base` is added again after
/// every `moves` moves (cutechess's `40/60+0.6`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Moves per period; `None` for the whole game on one period.
    pub moves: Option<u32>,
    /// Time of each period.
    pub base: Duration,
    /// Added after each move.
    pub inc: Duration,
}

/// The longest base or increment accepted: a day.
const MAX_SECONDS: f64 = 86_400.0;

fn seconds(text: &str) -> Option<Duration> {
    let s: f64 = text.trim().parse().ok()?;
    if !(s.is_finite() && (0.0..=MAX_SECONDS).contains(&s)) {
        return None;
    }
    // Whole milliseconds: the records write three decimals, and a run's
    // time control must read back from them as it was given.
    let ms = (s * 1000.0).round();
    ((s * 1000.0 - ms).abs() < 1e-6).then(|| Duration::from_millis(ms as u64))
}

/// Seconds with at most three decimals and no trailing zeros: `10`, `0.1`.
fn show_seconds(d: Duration) -> String {
    let text = format!("{:.3}", d.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl FromStr for TimeControl {
    type Err = String;

    /// Reads `BASE`, `BASE+INC`, `MOVES/BASE` or `MOVES/BASE+INC` (seconds,
    /// fractions allowed; the base must be positive).
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = |why: &str| {
            let text = engine::files::quoted(text, 40);
            format!("time control '{text}': {why}")
        };
        let (moves, rest) = match text.split_once('/') {
            Some((m, rest)) => {
                let m: u32 = m
                    .trim()
                    .parse()
                    .ok()
                    .filter(|&m| (1..=10_000).contains(&m))
                    .ok_or_else(|| {
                        bad("moves per period must be a whole number from 1 to 10000")
                    })?;
                (Some(m), rest)
            }
            None => (None, text),
        };
        let (base, inc) = rest.split_once('+').unwrap_or((rest, "0"));
        let base = seconds(base).filter(|b| !b.is_zero()).ok_or_else(|| {
            bad("the base must be a positive number of seconds up to a day, in whole milliseconds")
        })?;
        let inc = seconds(inc).ok_or_else(|| {
            bad("the increment must be a number of seconds from 0 to a day, in whole milliseconds")
        })?;
        Ok(TimeControl { moves, base, inc })
    }
}

impl fmt::Display for TimeControl {
    /// As read: `10+0.1`, `40/60+0.6`; the increment is left out when zero.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.moves {
            write!(f, "{m}/")?;
        }
        write!(f, "{}", show_seconds(self.base))?;
        if !self.inc.is_zero() {
            write!(f, "+{}", show_seconds(self.inc))?;
        }
        Ok(())
    }
}

/// One side's clock during a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    /// The time control.
    pub tc: TimeControl,
    /// Time left now.
    pub left: Duration,
    /// Moves made so far by this side.
    pub moves: u32,
    /// Thinking time used so far (as measured by the harness).
    pub used: Duration,
}

/// A side that used more than its clock held plus the margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flagged {
    /// Time the move took.
    pub took: Duration,
    /// Time that was left on the clock.
    pub left: Duration,
}

impl GameClock {
    /// A full clock at the start of a game.
    pub fn new(tc: TimeControl) -> Self {
        GameClock {
            tc,
            left: tc.base,
            moves: 0,
            used: Duration::ZERO,
        }
    }

    /// Moves left in this period, counting the next one (`None` without periods).
    pub fn moves_to_go(&self) -> Option<u32> {
        self.tc.moves.map(|m| m - self.moves % m)
    }

    /// What the engine is told before its move.
    pub fn search_clock(&self) -> Clock {
        Clock {
            time: self.left,
            inc: self.tc.inc,
            moves_to_go: self.moves_to_go(),
        }
    }

    /// The longest a move may take before the side loses on time.
    pub fn allowance(&self, margin: Duration) -> Duration {
        self.left + margin
    }

    /// Charges a move that took `took`: a move beyond the time left plus
    /// `margin` loses on time (its time counts as used; the time left is
    /// left as it was); otherwise the
    /// time is taken off (not below zero), the increment added, and at the
    /// end of a period the base added again.
    pub fn charge(&mut self, took: Duration, margin: Duration) -> Result<(), Flagged> {
        if took > self.allowance(margin) {
            self.used += took;
            return Err(Flagged {
                took,
                left: self.left,
            });
        }
        self.spend(took);
        Ok(())
    }

    /// Charges the time of a move not made (the engine failed, or answered
    /// an illegal move), which forfeits the game: the time counts as used
    /// and the clock stands, with no increment and no move of the period
    /// counted, as a record read back by `--resume` counts it. Beyond the
    /// time left plus `margin` it loses on time instead.
    pub fn charge_unmade(&mut self, took: Duration, margin: Duration) -> Result<(), Flagged> {
        self.used += took;
        if took > self.allowance(margin) {
            return Err(Flagged {
                took,
                left: self.left,
            });
        }
        Ok(())
    }

    /// A move that took `took` and did not lose on time: the time is taken
    /// off (not below zero: an overrun within the margin stops the clock at
    /// zero), the increment added, and at the end of a period the base
    /// added again.
    pub fn spend(&mut self, took: Duration) {
        self.left = self.left.saturating_sub(took) + self.tc.inc;
        self.used += took;
        self.moves += 1;
        if let Some(m) = self.tc.moves {
            if self.moves.is_multiple_of(m) {
                self.left += self.tc.base;
            }
        }
    }

    /// All the time this side was given so far: the base of every period
    /// begun and the increments of the moves made.
    pub fn allotted(&self) -> Duration {
        let periods = self.tc.moves.map_or(1, |m| 1 + self.moves / m);
        self.tc.base * periods + self.tc.inc * self.moves
    }

    /// The time this side was given for the moves it played, what its share
    /// of the clock is taken of: the base of every period it moved in (the
    /// first always; a period whose base came only as the game ended is
    /// left out) and the increment of every move made. `flagged`: the side
    /// lost on time on the move after these, which also counts as a move
    /// of its period.
    pub fn given(&self, flagged: bool) -> Duration {
        let played = self.moves.saturating_add(u32::from(flagged));
        let periods = self.tc.moves.map_or(1, |m| played.div_ceil(m).max(1));
        self.tc.base * periods + self.tc.inc * self.moves
    }
}

/// Seconds with three decimals, as the clock tags are written.
pub fn clock_text(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// A move's PDN annotation as cutechess writes it: `{+0.12/9 0.040s}` is a
/// score of +0.12 men at depth 9 found in 40 ms; a forced result is
/// `+W7` (win in 7 plies) or `-L6`; a player that did not search gets the time only.
pub fn annotation(score: Option<Score>, depth: Option<u32>, time: Duration) -> String {
    let score = match score {
        Some(Score::Cp(c)) => format!("{:+.2}", f64::from(c) / 100.0),
        Some(Score::Win(n)) => format!("+W{n}"),
        Some(Score::Loss(n)) => format!("-L{n}"),
        None => String::new(),
    };
    let depth = depth.map(|d| format!("/{d}")).unwrap_or_default();
    let time = format!("{:.3}s", time.as_secs_f64());
    if score.is_empty() {
        time
    } else {
        format!("{score}{depth} {time}")
    }
}

/// The PDN tags of the two sides' time controls and clocks at the end of a
/// game: `TimeControl` when both sides share one (else `WhiteTimeControl`
/// and `BlackTimeControl`), then each timed side's `...Clock` (time left)
/// and `...TimeUsed` (time spent), in seconds.
pub fn pdn_tags(clocks: &[Option<GameClock>; 2]) -> Vec<(String, String)> {
    let mut tags = Vec::new();
    let [w, b] = clocks.map(|c| c.map(|c| c.tc));
    match (w, b) {
        (Some(a), Some(b)) if a == b => tags.push(("TimeControl".into(), a.to_string())),
        _ => {
            for (side, tc) in [("White", w), ("Black", b)] {
                if let Some(tc) = tc {
                    tags.push((format!("{side}TimeControl"), tc.to_string()));
                }
            }
        }
    }
    for (side, c) in ["White", "Black"].into_iter().zip(clocks) {
        if let Some(c) = c {
            tags.push((format!("{side}Clock"), clock_text(c.left)));
            tags.push((format!("{side}TimeUsed"), clock_text(c.used)));
        }
    }
    tags
}

/// The time control a record names for a side (`TimeControl` or `WhiteTimeControl`...).
pub fn recorded_control(rec: &PdnRecord, side: Color) -> Option<String> {
    let own = format!("{}TimeControl", side_name(side));
    rec.tag(&own)
        .or_else(|| rec.tag("TimeControl"))
        .map(str::to_string)
}

fn side_name(side: Color) -> &'static str {
    match side {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Time use of one engine over the games it played on a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ClockStats {
    /// Games played on a clock.
    pub games: u64,
    /// Games lost on time.
    pub forfeits: u64,
    /// Thinking time, seconds.
    pub used: f64,
    /// Time given for the moves played ([`GameClock::given`]: the bases of
    /// the periods moved in plus the increments), seconds.
    pub allotted: f64,
    /// Largest share of the time given used in one game.
    pub max_share: f64,
}

impl ClockStats {
    /// Adds one game: the side's clock at the end, and whether it lost on time.
    pub fn add(&mut self, clock: &GameClock, flagged: bool) {
        let allotted = clock.given(flagged).as_secs_f64();
        // To the millisecond, as the `...TimeUsed` tags keep it: a run's
        // figures are then those of its records read back (`--resume`,
        // `selfplay merge`, `pdn clock`).
        let used = (clock.used.as_secs_f64() * 1000.0).round() / 1000.0;
        self.games += 1;
        self.forfeits += u64::from(flagged);
        self.used += used;
        self.allotted += allotted;
        if allotted > 0.0 {
            self.max_share = self.max_share.max(used / allotted);
        }
    }

    /// Adds the figures of other games.
    pub fn absorb(&mut self, other: &ClockStats) {
        self.games += other.games;
        self.forfeits += other.forfeits;
        self.used += other.used;
        self.allotted += other.allotted;
        self.max_share = self.max_share.max(other.max_share);
    }

    /// Share of the time given that was used, over all games.
    pub fn share(&self) -> f64 {
        if self.allotted > 0.0 {
            self.used / self.allotted
        } else {
            0.0
        }
    }

    /// Adds a game read back from its record (`--resume`): the side's time
    /// control, moves and `...TimeUsed` tag. `Err` when the record's time
    /// control is not `tc` or its clock tags do not read.
    pub fn add_record(
        &mut self,
        rec: &PdnRecord,
        side: Color,
        tc: TimeControl,
    ) -> Result<(), String> {
        let found = recorded_control(rec, side);
        if found.as_deref() != Some(tc.to_string().as_str()) {
            return Err(format!(
                "game {} was played with {} time control {}, not {tc}: resume with the same options",
                engine::files::quoted(&rec.round, 40),
                side_name(side),
                engine::files::quoted(found.as_deref().unwrap_or("none"), 40)
            ));
        }
        let used_tag = format!("{}TimeUsed", side_name(side));
        let used = rec
            .tag(&used_tag)
            .and_then(|t| t.parse::<f64>().ok())
            .filter(|u| readable_seconds(*u))
            .ok_or_else(|| format!("game {} has no readable [{used_tag}]", rec.round))?;
        let offset = usize::from(rec.first_mover() == Color::Black);
        let own = usize::from(side == Color::Black);
        let moves = (0..rec.moves.len())
            .filter(|i| (i + offset) % 2 == own)
            .count();
        let mut clock = GameClock::new(tc);
        clock.moves = u32::try_from(moves).unwrap_or(u32::MAX);
        clock.used = Duration::from_secs_f64(used);
        let flagged = rec
            .tag("Termination")
            .is_some_and(|t| lost_on_time(t, side));
        self.add(&clock, flagged);
        Ok(())
    }
}

/// The time a move took, read from its annotation (`{+0.12/9 0.040s}`):
/// the last word, in seconds with an `s`.
pub fn annotated_time(comment: &str) -> Option<f64> {
    comment
        .split_whitespace()
        .last()?
        .strip_suffix('s')?
        .parse::<f64>()
        .ok()
        .filter(|t| readable_seconds(*t))
}

/// The termination of a game lost on time, as records carry it:
/// `time forfeit: white took 0.104 s with 0.100 s left`.
pub fn forfeit_text(loser: Color, took: Duration, left: Duration) -> String {
    format!(
        "time forfeit: {} took {:.3} s with {:.3} s left",
        loser.name(),
        took.as_secs_f64(),
        left.as_secs_f64()
    )
}

/// Whether a termination ([`forfeit_text`]) says `side` lost on time.
pub fn lost_on_time(termination: &str, side: Color) -> bool {
    termination.starts_with(&format!("time forfeit: {} ", side.name()))
}

/// The move with which `side` lost on time, read from the record's
/// `[Termination]` (`time forfeit: white took 0.104 s with 0.100 s left`):
/// the seconds it took and the seconds that were left.
pub fn forfeit_of(rec: &PdnRecord, side: Color) -> Option<(f64, f64)> {
    let text = rec.tag("Termination")?;
    let rest = text.strip_prefix(&format!("time forfeit: {} took ", side.name()))?;
    let (took, rest) = rest.split_once(" s with ")?;
    let left = rest.strip_suffix(" s left")?;
    let seconds = |t: &str| t.parse::<f64>().ok().filter(|t| readable_seconds(*t));
    Some((seconds(took)?, seconds(left)?))
}

/// The most seconds a record may say a move or a clock used (about 31
/// years; a time control is at most a day): a larger figure is not a time.
const MAX_RECORDED_SECONDS: f64 = 1e9;

/// Whether `t` read from a record can be a time used: finite, not negative,
/// not more than [`MAX_RECORDED_SECONDS`].
fn readable_seconds(t: f64) -> bool {
    (0.0..=MAX_RECORDED_SECONDS).contains(&t)
}

/// A side's clock when its game ended: nothing for a side that lost on
/// time, and without the base of a period whose first move never came
/// (the one [`GameClock::spend`] adds after a period's last move, which
/// [`GameClock::given`] leaves out too).
fn clock_at_end(clock: &GameClock, flagged: bool) -> Duration {
    if flagged {
        return Duration::ZERO;
    }
    match clock.tc.moves {
        Some(m) if clock.moves > 0 && clock.moves.is_multiple_of(m) => {
            clock.left.saturating_sub(clock.tc.base)
        }
        _ => clock.left,
    }
}

/// How engines spent their clocks over a set of annotated games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeProfile {
    /// Games read.
    pub games: u64,
    /// Games with a time control and annotations, the ones counted.
    pub timed: u64,
    /// Games lost on time.
    pub forfeits: u64,
    /// Both sides' time used and given, seconds ([`ClockStats`]).
    pub used: f64,
    /// See `used`.
    pub allotted: f64,
    /// Largest share of its clock a side used in one game.
    pub max_share: f64,
    /// The least time a side had left right after one of its moves, before
    /// the increment, in seconds: the margin kept from losing on time
    /// (negative after an overrun; `None` before any move was read).
    pub min_left: Option<f64>,
    /// By a side's move number (0 for its first move): moves seen, their
    /// total time and the longest, in seconds.
    pub per_move: Vec<(u64, f64, f64)>,
    /// By the number of moves a side made in the game, in the bands that
    /// begin at [`LENGTH_BANDS`]: where the time left unused was.
    pub by_length: [LengthBand; LENGTH_BANDS.len()],
}

/// The first move count of each band of [`TimeProfile::by_length`] (a
/// band runs to the next one's start; the last has no end).
pub const LENGTH_BANDS: [u32; 5] = [0, 30, 45, 60, 80];

/// The sides whose game lasted a band of move counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LengthBand {
    /// Sides counted (two a game when both were on a clock).
    pub sides: u64,
    /// Time given to these sides ([`GameClock::given`]), seconds.
    pub given: f64,
    /// Time they used, seconds.
    pub used: f64,
    /// The clock each had at the end of its game, seconds.
    pub left: Vec<f64>,
}

impl LengthBand {
    /// Median clock at the end of the game (`None` for an empty band).
    pub fn median_left(&self) -> Option<f64> {
        let mut v = self.left.clone();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(v[n / 2]),
            _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
        }
    }
}

impl TimeProfile {
    /// Adds a record. A record is counted when it gives the time of every
    /// move (a move without it leaves the clocks unknown from there on) and
    /// has a move or a loss on time (a game lost on time before any move is
    /// counted too); each side of it with a time control is counted. Other
    /// records are counted as read only.
    pub fn add(&mut self, rec: &PdnRecord) {
        self.games += 1;
        let forfeit = [Color::White, Color::Black]
            .iter()
            .any(|&side| forfeit_of(rec, side).is_some());
        if rec.moves.is_empty() && !forfeit {
            return;
        }
        let Some(times) = (0..rec.moves.len())
            .map(|i| rec.comments.get(&i).and_then(|c| annotated_time(c)))
            .collect::<Option<Vec<f64>>>()
        else {
            return;
        };
        let offset = usize::from(rec.first_mover() == Color::Black);
        let mut counted = false;
        for side in [Color::White, Color::Black] {
            let Some(tc) = recorded_control(rec, side).and_then(|t| t.parse::<TimeControl>().ok())
            else {
                continue;
            };
            let own = usize::from(side == Color::Black);
            let mut clock = GameClock::new(tc);
            for (_, &t) in times
                .iter()
                .enumerate()
                .filter(|(i, _)| (i + offset) % 2 == own)
            {
                let n = clock.moves as usize;
                if self.per_move.len() <= n {
                    self.per_move.resize(n + 1, (0, 0.0, 0.0));
                }
                let slot = &mut self.per_move[n];
                slot.0 += 1;
                slot.1 += t;
                slot.2 = slot.2.max(t);
                // Left after the move, on the clock the harness kept: an
                // overrun within `--time-margin` shows as a negative time
                // left, and the clock went on from zero.
                let left = clock.left.as_secs_f64() - t;
                self.min_left = Some(self.min_left.map_or(left, |m| m.min(left)));
                clock.spend(Duration::from_secs_f64(t));
            }
            // The move that lost on time has no annotation: the record's
            // termination gives its time.
            if let Some((took, left)) = forfeit_of(rec, side) {
                let after = left - took;
                self.min_left = Some(self.min_left.map_or(after, |m| m.min(after)));
                clock.used += Duration::from_secs_f64(took);
            }
            // The time used in all is the record's tag where it has one (the
            // harness's own sum; each move's time is rounded in its comment).
            if let Some(used) = rec
                .tag(&format!("{}TimeUsed", side_name(side)))
                .and_then(|t| t.parse::<f64>().ok())
                .filter(|u| readable_seconds(*u))
            {
                clock.used = Duration::from_secs_f64(used);
            }
            let flagged = rec
                .tag("Termination")
                .is_some_and(|t| lost_on_time(t, side));
            let mut stats = ClockStats::default();
            stats.add(&clock, flagged);
            let band = LENGTH_BANDS
                .iter()
                .rposition(|&start| clock.moves >= start)
                .unwrap_or(0);
            let b = &mut self.by_length[band];
            b.sides += 1;
            b.given += stats.allotted;
            b.used += stats.used;
            b.left.push(clock_at_end(&clock, flagged).as_secs_f64());
            self.forfeits += stats.forfeits;
            self.used += stats.used;
            self.allotted += stats.allotted;
            self.max_share = self.max_share.max(stats.max_share);
            counted = true;
        }
        self.timed += u64::from(counted);
    }

    /// Share of the time given that was used.
    pub fn share(&self) -> f64 {
        if self.allotted > 0.0 {
            self.used / self.allotted
        } else {
            0.0
        }
    }

    /// `move,moves,mean_ms,max_ms` lines (move numbers from 1).
    pub fn csv(&self) -> String {
        let mut out = String::from("move,moves,mean_ms,max_ms\n");
        for (n, &(count, total, max)) in self.per_move.iter().enumerate() {
            if count > 0 {
                out.push_str(&format!(
                    "{},{count},{:.3},{:.3}\n",
                    n + 1,
                    1000.0 * total / count as f64,
                    1000.0 * max
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn first_record(text: &str) -> crate::pdn::GameRecord {
        crate::pdn::PdnReader::new(text.as_bytes())
            .next()
            .unwrap()
            .unwrap()
    }

    #[test]
    fn only_times_a_clock_could_hold_are_read() {
        assert_eq!(annotated_time("+0.10/3 0.200s"), Some(0.2));
        assert_eq!(annotated_time("0s"), Some(0.0));
        for bad in ["1e20s", "-1s", "NaNs", "infs", "0.2", "x"] {
            assert_eq!(annotated_time(bad), None, "{bad}");
        }
        // A record saying so is not a crash when profiled.
        let text = "[TimeControl \"10\"]\n\n1. a1 {1e20s} b2 {0.5s} 1-0\n";
        let rec = first_record(text);
        let mut p = TimeProfile::default();
        p.add(&rec);
        assert_eq!(p.games, 1);
    }

    #[test]
    fn a_profile_adds_up_the_annotated_times() {
        let text = "[TimeControl \"1+0.1\"]\n[Termination \"time forfeit: black took 2.000 s with 1.000 s left\"]\n\n\
                    1. a1 {+0.10/3 0.200s} b2 {-0.10/3 0.300s} 2. c3 {0.100s} 0-1\n";
        let rec = first_record(text);
        let mut p = TimeProfile::default();
        p.add(&rec);
        assert_eq!((p.games, p.timed, p.forfeits), (1, 1, 1));
        assert_eq!(p.per_move.len(), 2);
        assert_eq!(p.per_move[0].0, 2);
        assert!((p.per_move[0].1 - 0.5).abs() < 1e-9 && (p.per_move[0].2 - 0.3).abs() < 1e-9);
        // White: 0.3 s of 1 + 2 x 0.1; Black: 0.3 s and the 2 s of the move
        // that lost on time (from the termination), of 1 + 0.1.
        assert!((p.used - 2.6).abs() < 1e-6 && (p.allotted - 2.3).abs() < 1e-6);
        // The least left after a move: Black's last, 1 - 2 (White kept 0.8
        // after either move: 1 - 0.2, then 1 + 0.1 - 0.3; Black 0.7 after its
        // first).
        assert!((p.min_left.unwrap() + 1.0).abs() < 1e-6, "{:?}", p.min_left);
        assert!((p.max_share - 2.3 / 1.1).abs() < 1e-6, "{}", p.max_share);
        assert!(p
            .csv()
            .starts_with("move,moves,mean_ms,max_ms\n1,2,250.000,300.000\n"));
    }

    #[test]
    fn reads_and_writes_time_controls() {
        for (text, moves, base, inc) in [
            ("10+0.1", None, 10_000, 100),
            ("60+0.6", None, 60_000, 600),
            ("40/60+0.6", Some(40), 60_000, 600),
            ("40/60", Some(40), 60_000, 0),
            ("0.5", None, 500, 0),
        ] {
            let tc: TimeControl = text.parse().unwrap();
            assert_eq!(
                tc,
                TimeControl {
                    moves,
                    base: ms(base),
                    inc: ms(inc)
                },
                "{text}"
            );
            assert_eq!(tc.to_string(), text);
        }
        for bad in [
            "",
            "0+1",
            "x",
            "10+",
            "-1+0",
            "0/10",
            "a/10",
            "10+1+2",
            "1e99",
            "NaN",
            // Not whole milliseconds: the records could not give them back.
            "0.0004",
            "1.2345+0.0004",
            "10+0.0001",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
        // Text with control characters is named escaped, in one line.
        let e = "x\r+0".parse::<TimeControl>().unwrap_err();
        assert!(e.contains("'x\\r+0'"), "{e}");
        // Whole milliseconds read back from their text, however written.
        for text in ["0.001", "8.5+0.1", "1.234+0.001", "51+0.6"] {
            let tc: TimeControl = text.parse().unwrap();
            assert_eq!(tc.to_string().parse::<TimeControl>().unwrap(), tc, "{text}");
        }
    }

    #[test]
    fn the_increment_comes_after_the_move() {
        let mut c = GameClock::new("1+0.1".parse().unwrap());
        assert_eq!(c.search_clock().time, ms(1000));
        c.charge(ms(300), ms(0)).unwrap();
        assert_eq!((c.left, c.moves, c.used), (ms(800), 1, ms(300)));
        assert_eq!(c.allotted(), ms(1100));
    }

    #[test]
    fn a_period_tops_the_clock_up() {
        let mut c = GameClock::new("2/1".parse().unwrap());
        assert_eq!(c.moves_to_go(), Some(2));
        c.charge(ms(400), ms(0)).unwrap();
        assert_eq!((c.left, c.moves_to_go()), (ms(600), Some(1)));
        c.charge(ms(500), ms(0)).unwrap();
        assert_eq!((c.left, c.moves_to_go()), (ms(1100), Some(2)));
        assert_eq!(c.allotted(), ms(2000));
        assert_eq!(c.search_clock().moves_to_go, Some(2));
    }

    /// The share of the clock is taken of the time given for the moves
    /// played: a period's base that came only as the game ended is not in
    /// it, and a move that lost on time counts in its period.
    #[test]
    fn the_time_given_counts_the_periods_moved_in() {
        let mut c = GameClock::new("2/1".parse().unwrap());
        assert_eq!(c.given(false), ms(1000));
        c.charge(ms(450), ms(0)).unwrap();
        c.charge(ms(450), ms(0)).unwrap();
        assert_eq!(
            c.allotted(),
            ms(2000),
            "the second period's base is on the clock"
        );
        assert_eq!(c.given(false), ms(1000), "but no move was made in it");
        assert_eq!(c.given(true), ms(2000), "a move that lost on time was");
        let mut stats = ClockStats::default();
        stats.add(&c, false);
        assert!((stats.share() - 0.9).abs() < 1e-9, "{}", stats.share());
        let mut c = GameClock::new("1+0.1".parse().unwrap());
        c.charge(ms(300), ms(0)).unwrap();
        assert_eq!(
            c.given(false),
            ms(1100),
            "increments are given with their moves"
        );
    }

    /// A game lost on time before any move is a forfeit in the profile, as
    /// it is in the run's summary; a record with a move whose time it does
    /// not give is not counted (the clocks are unknown from there on).
    #[test]
    fn the_profile_counts_an_early_forfeit_and_skips_a_record_without_its_times() {
        let text = "[TimeControl \"1+0.01\"]\n[Termination \"time forfeit: white took 1.200 s with 1.000 s left\"]\n\n0-1\n";
        let mut p = TimeProfile::default();
        p.add(&first_record(text));
        assert_eq!((p.games, p.timed, p.forfeits), (1, 1, 1));
        assert!((p.min_left.unwrap() + 0.2).abs() < 1e-6, "{:?}", p.min_left);
        // White used 1.2 s of 1; Black, who never had to move, none of 1.
        assert!(
            (p.used - 1.2).abs() < 1e-6 && (p.allotted - 2.0).abs() < 1e-6,
            "{p:?}"
        );
        assert!((p.max_share - 1.2).abs() < 1e-6, "{}", p.max_share);

        let text = "[TimeControl \"1+0.1\"]\n\n1. a1 {0.500s} b2 {0.100s} 2. c3 {book} d4 {0.100s} 3. e5 {0.600s} f6 {0.100s} 1-0\n";
        let mut p = TimeProfile::default();
        p.add(&first_record(text));
        p.add(&first_record("[TimeControl \"1+0.1\"]\n\n1. a1 b2 1-0\n"));
        p.add(&first_record("[TimeControl \"1+0.1\"]\n\n1. a1 1-0\n"));
        p.add(&first_record("[TimeControl \"1+0.1\"]\n\n1-0\n"));
        assert_eq!((p.games, p.timed, p.used, p.min_left), (4, 0, 0.0, None));
        assert!(p.per_move.is_empty());
    }

    /// Sides are banded by the moves they made: White's 30 moves open the
    /// second band while Black's 29 stay in the first; the clock at the end
    /// is the replayed one.
    #[test]
    fn the_profile_bands_sides_by_the_moves_they_made() {
        let mut text = String::from("[TimeControl \"10+0.1\"]\n\n");
        for n in 1..=30 {
            text.push_str(&format!("{n}. a1 {{0.200s}} "));
            if n < 30 {
                text.push_str("b2 {0.100s} ");
            }
        }
        text.push_str("1-0\n");
        let mut p = TimeProfile::default();
        p.add(&first_record(&text));
        let [first, second, ..] = &p.by_length;
        assert_eq!((first.sides, second.sides), (1, 1));
        // Black: 10 + 29 x (0.1 - 0.1); White: 10 + 30 x (0.1 - 0.2).
        assert!((first.left[0] - 10.0).abs() < 1e-6, "{first:?}");
        assert!((second.left[0] - 7.0).abs() < 1e-6, "{second:?}");
        assert!((second.given - 13.0).abs() < 1e-6 && (second.used - 6.0).abs() < 1e-6);
        assert_eq!(second.median_left(), Some(second.left[0]));
        assert!(p.by_length[2..].iter().all(|b| b.sides == 0));
        let band = LengthBand {
            left: vec![3.0, 1.0, 2.0, 10.0],
            ..LengthBand::default()
        };
        assert_eq!(band.median_left(), Some(2.5));
        assert_eq!(LengthBand::default().median_left(), None);
    }

    /// The clock at the end: a side that lost on time had none left, and
    /// the base of a period never begun is not counted (it is not in the
    /// time given either).
    #[test]
    fn the_clock_at_the_end_leaves_out_what_was_never_there() {
        let mut text = String::from("[TimeControl \"40/10+0.1\"]\n\n");
        for n in 1..=40 {
            text.push_str(&format!("{n}. a1 {{0.300s}} b2 {{0.300s}} "));
        }
        text.push_str("1/2-1/2\n");
        let mut p = TimeProfile::default();
        p.add(&first_record(&text));
        // 10 + 40 x (0.1 - 0.3) = 2 s each; the second period's 10 s not yet.
        let band = &p.by_length[1];
        assert_eq!(band.sides, 2);
        assert!(band.left.iter().all(|l| (l - 2.0).abs() < 1e-6), "{band:?}");
        assert!((band.given - band.used - 4.0).abs() < 1e-6, "{band:?}");

        let text = "[TimeControl \"10+0.1\"]\n[Termination \"time forfeit: black took 12.000 s with 10.100 s left\"]\n\n\
                    1. a1 {0.100s} b2 {0.100s} 2. c3 {0.100s} 1-0\n";
        let mut p = TimeProfile::default();
        p.add(&first_record(text));
        let mut left = p.by_length[0].left.clone();
        left.sort_by(f64::total_cmp);
        assert_eq!(left.len(), 2);
        assert!(left[0] == 0.0 && (left[1] - 10.0).abs() < 1e-6, "{left:?}");
    }

    /// A run with `--time-margin` lets a move overrun the clock by up to the
    /// margin; the harness then stops the clock at zero. The profile replays
    /// that clock: the overrun shows as a negative time left, and a later
    /// overrun is measured from zero, not from a clock the first one took
    /// below zero.
    #[test]
    fn the_profile_replays_a_clock_stopped_at_zero() {
        let text = "[TimeControl \"1+0.1\"]\n\n1. a1 {1.050s} b2 {0.100s} 2. c3 {0.120s} d4 {0.100s} 3. e5 {0.050s} 1-0\n";
        let mut p = TimeProfile::default();
        p.add(&first_record(text));
        // White: 1 - 1.05 = -0.05, then 0 + 0.1 - 0.12 = -0.02, then
        // 0 + 0.1 - 0.05 = 0.05; counting from all given less all used
        // would say 1.1 - 1.05 - 0.12 = -0.07 for the second.
        assert!(
            (p.min_left.unwrap() + 0.05).abs() < 1e-6,
            "{:?}",
            p.min_left
        );
        let mut c = GameClock::new("1+0.1".parse().unwrap());
        c.charge(ms(1050), ms(50)).unwrap();
        c.charge(ms(120), ms(50)).unwrap();
        assert_eq!(c.left, ms(100));
    }

    #[test]
    fn overrunning_flags_only_beyond_the_margin() {
        let mut c = GameClock::new("0.1".parse().unwrap());
        let mut within = c;
        within.charge(ms(130), ms(50)).unwrap();
        assert_eq!(within.left, Duration::ZERO);
        assert_eq!(
            c.charge(ms(151), ms(50)),
            Err(Flagged {
                took: ms(151),
                left: ms(100)
            })
        );
        assert_eq!(c.moves, 0);
        // The move that lost on time counts as used; the time left stays.
        assert_eq!((c.used, c.left), (ms(151), ms(100)));
    }
}
