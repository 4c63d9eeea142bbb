//! Perft for Bashnya, specialised for speed: the counts of `engine::perft`
//! (which hands Bashnya positions to this module), found with less work.
//!
//! At this low branching factor (about five moves a position) a plain perft
//! spends most of its time copying positions for the moves of the last plies
//! and listing the moves of their children. Here:
//!
//! * moves are made and undone in place on one position
//!   ([`Position::with_move`]), with no hash kept up to date;
//! * a position two plies above the leaves lists its non-capturing moves
//!   straight from the bitboards, without building moves, and for each one
//!   counts the child's moves from the child's bitboards alone, computed in
//!   registers: only when the child must capture is the move made (two
//!   squares change) for the capture search;
//! * the counting capture search has a fast path for men
//!   (`captures::ManChains`);
//!
//! In parallel, the generic split of [`crate::perft::split`] hands its
//! subtrees to this walk.

#[cfg(test)]
use super::geometry::NONE;
use super::geometry::{far_rank, open_run, shift, squares, NEIGHBOUR};
use super::movegen::{
    count, count_captures, count_quiet, generate, generate_captures, Jumps, Sides,
};
use super::position::Position;
use crate::game::Color;
use crate::movelist::MoveList;

/// Leaf count of the move tree `depth` plies deep: Bashnya's
/// [`Game::perft`](crate::game::Game::perft), the generic walk's count.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count(pos),
        _ => {
            let mut pos = *pos;
            walk(&mut pos, depth)
        }
    }
}

/// Perft of a position at least two plies above the leaves, by make-unmake
/// on the one position: it is left as it was found.
fn walk(pos: &mut Position, depth: u32) -> u64 {
    if depth == 2 {
        return frontier(pos);
    }
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list.iter()
        .map(|m| pos.with_move(m, |child| walk(child, depth - 1)))
        .sum()
}

/// Perft two plies deep: the number of moves of every child.
fn frontier(pos: &mut Position) -> u64 {
    let sides = Sides::of(pos);
    let jumps = Jumps::of(&sides);
    if jumps.capturers() != 0 {
        let mut list = MoveList::new();
        generate_captures(pos, &sides, &jumps, &mut list);
        return list
            .iter()
            .map(|m| pos.with_move(m, |child| count(child)))
            .sum();
    }
    let far = far_rank(sides.black);
    let mut total = 0;
    for d in sides.forward() {
        let back = 3 - d;
        for to in squares(shift(sides.men, d) & sides.empty) {
            let from = NEIGHBOUR[back][to as usize];
            total += count_after_quiet(pos, from, to, far & (1 << to) != 0);
        }
    }
    for k in squares(sides.kings) {
        for d in 0..4 {
            for to in squares(open_run(k, d, !sides.empty)) {
                total += count_after_quiet(pos, k, to, false);
            }
        }
    }
    total
}

/// The number of moves after the non-capturing move `from`-`to`. The child's
/// bitboards decide whether it has a capture; only then are columns read.
#[inline(always)]
fn count_after_quiet(pos: &mut Position, from: u8, to: u8, promotes: bool) -> u64 {
    let both = (1u32 << from) | (1u32 << to);
    let occ = pos.occ ^ both;
    let black = if pos.black & (1 << from) != 0 {
        pos.black ^ both
    } else {
        pos.black
    };
    let kings = if pos.kings & (1 << from) != 0 {
        pos.kings ^ both
    } else if promotes {
        pos.kings | 1 << to
    } else {
        pos.kings
    };
    let sides = Sides::from_bits(occ, black, kings, pos.side == Color::White);
    let jumps = Jumps::of(&sides);
    if jumps.capturers() == 0 {
        count_quiet(&sides)
    } else {
        pos.with_quiet(from, to, promotes, |child| {
            count_captures(child, &sides, &jumps)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bashnya::{Column, Piece};
    use crate::game::Game;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Perft the plain way: every move generated and played by copy-make,
    /// the last ply counted from the generated list.
    fn plain_perft(pos: &Position, depth: u32) -> u64 {
        let mut list = MoveList::new();
        pos.generate(&mut list);
        match depth {
            0 => 1,
            1 => list.len() as u64,
            _ => list
                .iter()
                .map(|m| plain_perft(&pos.play(m), depth - 1))
                .sum(),
        }
    }

    /// A random legal position with tall mixed columns (one of them sometimes
    /// taller than 15 pieces) and kings.
    fn random_tall(rng: &mut Xoshiro256PlusPlus) -> Position {
        // Now and then most pieces go to the first column.
        let towering = rng.random_bool(0.3);
        let mut pieces = Vec::new();
        for (man, king) in [
            (Piece::WhiteMan, Piece::WhiteKing),
            (Piece::BlackMan, Piece::BlackKing),
        ] {
            for _ in 0..rng.random_range(if towering { 9..=12 } else { 2..=12 }) {
                pieces.push(if rng.random_bool(0.2) { king } else { man });
            }
        }
        pieces.shuffle(rng);
        let mut squares: Vec<u8> = (0..32).collect();
        squares.shuffle(rng);
        let count = rng.random_range(2..=12).min(pieces.len());
        let mut stacks = vec![Vec::new(); count];
        for (i, p) in pieces.into_iter().enumerate() {
            let c = if i < count {
                i
            } else if towering && rng.random_bool(0.8) {
                0
            } else {
                rng.random_range(0..count)
            };
            stacks[c].push(p);
        }
        let columns: Vec<(u8, Column)> = stacks
            .iter_mut()
            .zip(&squares)
            .map(|(stack, &sq)| {
                let far = if stack[0] == Piece::WhiteMan {
                    28..32
                } else {
                    0..4
                };
                if far.contains(&sq) && !stack[0].is_king() {
                    stack[0] = if stack[0] == Piece::WhiteMan {
                        Piece::WhiteKing
                    } else {
                        Piece::BlackKing
                    };
                }
                (sq, Column::from_pieces(stack).unwrap())
            })
            .collect();
        let side = if rng.random_bool(0.5) {
            Color::White
        } else {
            Color::Black
        };
        Position::from_columns(side, &columns).unwrap()
    }

    /// Positions from random games, from the start and from tall random
    /// positions.
    fn sample(games: u64) -> Vec<Position> {
        let mut out = Vec::new();
        for seed in 0..games {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut pos = if seed % 2 == 0 {
                Position::initial()
            } else {
                random_tall(&mut rng)
            };
            for _ in 0..rng.random_range(0..80) {
                let mut list = MoveList::new();
                pos.generate(&mut list);
                if list.is_empty() {
                    break;
                }
                out.push(pos);
                pos = pos.play(&list[rng.random_range(0..list.len())]);
            }
            out.push(pos);
        }
        out
    }

    #[test]
    fn fast_perft_matches_plain_perft() {
        let positions = sample(600);
        assert!(positions.len() > 10_000);
        let tall = positions.iter().filter(|p| p.tall_sq != NONE).count();
        let kings = positions.iter().filter(|p| p.kings != 0).count();
        let captures = positions.iter().filter(|p| p.must_capture()).count();
        assert!(tall > 100, "{tall} positions with a column taller than 15");
        assert!(kings > 2_000, "{kings} positions with kings");
        assert!(captures > 2_000, "{captures} positions with captures");
        let freed = positions.iter().filter(|p| p.freed != 0).count();
        assert!(freed > 2_000, "{freed} positions with a column to free");
        for (i, pos) in positions.iter().enumerate() {
            assert_eq!(pos.freed, pos.computed_freed(), "{pos:?}");
            let deepest = if i % 8 == 0 { 4 } else { 3 };
            for depth in 0..=deepest {
                assert_eq!(
                    perft(pos, depth),
                    plain_perft(pos, depth),
                    "{pos:?} depth {depth}"
                );
            }
            if i % 64 == 0 {
                assert_eq!(
                    crate::perft::perft_parallel(pos, 5),
                    perft(pos, 5),
                    "{pos:?} in parallel"
                );
            }
        }
    }

    #[test]
    fn make_unmake_restores_and_matches_copy_make() {
        for mut pos in sample(300) {
            let before = pos;
            let mut list = MoveList::new();
            pos.generate(&mut list);
            for m in &list {
                let made = pos.after(m);
                pos.with_move(m, |child| {
                    // Everything but the hash, which make-unmake leaves alone.
                    assert_eq!(
                        Position {
                            hash: made.hash,
                            ..*child
                        },
                        made,
                        "{before:?} {m}"
                    );
                    assert_eq!(count(child), made.count_moves(), "{before:?} {m}");
                });
                assert_eq!(pos, before, "{m} undone");
                assert_eq!(made.freed, made.computed_freed(), "{before:?} {m}");
            }
        }
    }
}
