//! Opening books: start positions played twice, colours swapped.

use engine::eval::Evaluator;
use engine::search::{Engine, Limits, SearchInput};
use engine::{Game, MoveList};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::collections::HashSet;

/// Reads a book: one position text per line; `#` starts a comment line.
pub fn parse_book<G: Game>(text: &str) -> Result<Vec<G>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos =
            G::parse_position(line).map_err(|e| format!("opening book line {}: {e}", i + 1))?;
        out.push(pos);
    }
    if out.is_empty() {
        return Err("the opening book has no positions".into());
    }
    Ok(out)
}

/// Openings read from game records ([`book_from_pdn`]).
#[derive(Clone, Debug)]
pub struct PdnBook<G> {
    /// The positions, each once, in file order.
    pub positions: Vec<G>,
    /// Games shorter than the plies, or over at that ply.
    pub short: usize,
    /// Games whose position is one an earlier game reached (a pair of
    /// games played by the same engines often does): each position is one
    /// opening, as two copies would count one game pair twice.
    pub repeated: usize,
}

/// Openings from game records: the position after the first `plies` plies
/// of each game (its `[FEN]` start or the initial position), in file order,
/// each position once. Games that are shorter, or over at that ply, are
/// skipped and counted, and so are those that reach a position an earlier
/// game did; a record that does not read or replay is an error naming its
/// game.
pub fn book_from_pdn<G: Game, R: std::io::BufRead>(
    input: R,
    plies: usize,
) -> Result<PdnBook<G>, String> {
    let mut book = PdnBook {
        positions: Vec::new(),
        short: 0,
        repeated: 0,
    };
    let mut seen = HashSet::new();
    for (i, rec) in crate::pdn::PdnReader::new(input).enumerate() {
        let rec = rec.map_err(|e| format!("game {}: {e}", i + 1))?;
        let mut prefix = rec.clone();
        if prefix.moves.len() < plies {
            book.short += 1;
            continue;
        }
        // Only the opening is replayed: the result of the whole game is not
        // judged against a cut record (a whole one keeps it).
        if prefix.moves.len() > plies {
            prefix.moves.truncate(plies);
            prefix.result = crate::pdn::PdnResult::Unknown;
        }
        let r = crate::pdn::replay::<G>(&prefix).map_err(|e| format!("game {}: {e}", i + 1))?;
        // A game over at that ply (no move left, or a threefold
        // repetition) opens nothing.
        if r.outcome.is_some() {
            book.short += 1;
            continue;
        }
        if !seen.insert(r.end.to_text()) {
            book.repeated += 1;
            continue;
        }
        book.positions.push(r.end);
    }
    Ok(book)
}

/// How a book is made.
#[derive(Clone, Copy, Debug)]
pub struct BookRecipe {
    /// Positions wanted.
    pub count: usize,
    /// Random plies from the start: at least this many...
    pub min_plies: usize,
    /// ...and at most this many.
    pub max_plies: usize,
    /// Search depth of the balance check.
    pub depth: u32,
    /// Largest accepted absolute score (centi-men) after the search.
    pub max_score: i32,
    /// Seed of the random plies.
    pub seed: u64,
}

/// Random plies from the start, kept when a short search finds the position
/// balanced and it is new; deterministic for a given recipe.
pub fn generate_book<G: Game, E: Evaluator<G> + ?Sized>(recipe: &BookRecipe, eval: &E) -> Vec<G> {
    generate_book_with_progress(recipe, eval, &indicatif::ProgressBar::hidden())
}

/// [`generate_book`], advancing `bar` by each position kept.
pub fn generate_book_with_progress<G: Game, E: Evaluator<G> + ?Sized>(
    recipe: &BookRecipe,
    eval: &E,
    bar: &indicatif::ProgressBar,
) -> Vec<G> {
    let mut book = Vec::with_capacity(recipe.count);
    let mut seen = HashSet::new();
    let mut attempt = 0u64;
    while book.len() < recipe.count && attempt < 200 * recipe.count as u64 + 1000 {
        let batch: Vec<Option<G>> = (attempt..attempt + 256)
            .into_par_iter()
            .map(|i| candidate::<G, E>(recipe, eval, i))
            .collect();
        attempt += 256;
        for pos in batch.into_iter().flatten() {
            if book.len() < recipe.count && seen.insert(<G as Game>::hash(&pos)) {
                book.push(pos);
                bar.inc(1);
            }
        }
    }
    book
}

fn candidate<G: Game, E: Evaluator<G> + ?Sized>(
    recipe: &BookRecipe,
    eval: &E,
    i: u64,
) -> Option<G> {
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(recipe.seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let plies = rng.random_range(recipe.min_plies..=recipe.max_plies.max(recipe.min_plies));
    let mut pos = G::start();
    let mut list = MoveList::new();
    for _ in 0..plies {
        pos.generate(&mut list);
        if list.is_empty() {
            return None;
        }
        pos = pos.play(&list[rng.random_range(0..list.len())]);
    }
    pos.generate(&mut list);
    if list.is_empty() || pos.must_capture() {
        return None;
    }
    let mut engine = Engine::<G>::new(engine::tt::HashSize::MIN, 1);
    let r = engine.search(
        eval,
        &SearchInput::new(pos, Limits::depth(recipe.depth)),
        |_| {},
    );
    (r.score.internal().abs() <= recipe.max_score).then_some(pos)
}
