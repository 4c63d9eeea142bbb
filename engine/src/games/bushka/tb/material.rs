//! Materials: how many kings and men each side has, written `KKMvK`.

use crate::bushka::Position;
use crate::game::Color;
use std::fmt;

/// Most pieces of one kind on one side that the table code handles.
pub const MAX_PER_KIND: u8 = 7;

/// Kings and men of each side (`[white, black]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// Kings of White and Black.
    pub kings: [u8; 2],
    /// Men of White and Black.
    pub men: [u8; 2],
}

impl Material {
    /// A material from its counts: White's kings and men, Black's kings and men.
    pub fn new(wk: u8, wm: u8, bk: u8, bm: u8) -> Material {
        Material {
            kings: [wk, bk],
            men: [wm, bm],
        }
    }

    /// The material of a position.
    pub fn of(pos: &Position) -> Material {
        let count = |bb: u64| bb.count_ones() as u8;
        Material {
            kings: [
                count(pos.kings(Color::White)),
                count(pos.kings(Color::Black)),
            ],
            men: [count(pos.men(Color::White)), count(pos.men(Color::Black))],
        }
    }

    /// Pieces of one side.
    pub fn side(&self, c: Color) -> u8 {
        self.kings[c as usize] + self.men[c as usize]
    }

    /// Pieces on the board.
    pub fn total(&self) -> u8 {
        self.side(Color::White) + self.side(Color::Black)
    }

    /// Men on the board (promotions lower it, so fewer men are built first).
    pub fn total_men(&self) -> u8 {
        self.men[0] + self.men[1]
    }

    /// A small number naming the material (for table lookups), below [`Material::CODES`].
    pub fn code(&self) -> usize {
        let b = MAX_PER_KIND as usize + 1;
        ((self.kings[0] as usize * b + self.men[0] as usize) * b + self.kings[1] as usize) * b
            + self.men[1] as usize
    }

    /// The number of distinct codes.
    pub const CODES: usize = (MAX_PER_KIND as usize + 1).pow(4);

    /// True when every count is within what the tables can index.
    pub fn in_range(&self) -> bool {
        self.kings
            .iter()
            .chain(self.men.iter())
            .all(|&n| n <= MAX_PER_KIND)
            && self.men[0] <= 45
            && self.men[1] <= 45
    }

    /// Every material with both sides present and at most `pieces` pieces,
    /// ordered so that each comes after every material its moves reach
    /// (captures lower the total, promotions lower the number of men).
    pub fn all_up_to(pieces: u8) -> Vec<Material> {
        let mut out = Vec::new();
        for total in 2..=pieces {
            for w in 1..total {
                let b = total - w;
                for wk in 0..=w {
                    for bk in 0..=b {
                        out.push(Material::new(wk, w - wk, bk, b - bk));
                    }
                }
            }
        }
        out.retain(Material::in_range);
        out.sort_by_key(|m| {
            (
                m.total(),
                m.total_men(),
                std::cmp::Reverse(m.kings[0]),
                m.men[1],
            )
        });
        out
    }

    /// Reads `KKMvK`: White's pieces, `v`, Black's; `K` a king, `M` a man.
    pub fn parse(text: &str) -> Result<Material, String> {
        let text = text.trim();
        // The text as the messages quote it.
        let shown = crate::files::quoted(text, 40);
        let (w, b) = text
            .split_once(['v', 'V'])
            .ok_or_else(|| format!("material '{shown}' must look like KKKvK (White v Black)"))?;
        let side = |s: &str| -> Result<(u8, u8), String> {
            let (mut k, mut m) = (0u8, 0u8);
            for c in s.chars() {
                match c.to_ascii_uppercase() {
                    'K' => k = k.saturating_add(1),
                    'M' => m = m.saturating_add(1),
                    _ => {
                        return Err(format!(
                            "material '{shown}': unknown piece letter '{}' (K king, M man)",
                            c.escape_default()
                        ))
                    }
                }
            }
            if u16::from(k) + u16::from(m) == 0 {
                return Err(format!("material '{shown}': each side needs a piece"));
            }
            Ok((k, m))
        };
        let (wk, wm) = side(w)?;
        let (bk, bm) = side(b)?;
        let mat = Material::new(wk, wm, bk, bm);
        if !mat.in_range() {
            return Err(format!(
                "material '{shown}' has too many pieces of one kind"
            ));
        }
        Ok(mat)
    }

    /// The file name of the material's table.
    pub fn file_name(&self) -> String {
        format!("{self}.tb")
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side =
            |c: usize| "K".repeat(self.kings[c] as usize) + &"M".repeat(self.men[c] as usize);
        write!(f, "{}v{}", side(0), side(1))
    }
}

impl std::str::FromStr for Material {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Material::parse(s)
    }
}
