//! Bushka: RULES.md section 1.
