//! Text that reads as what it is: attribute names and identities are shown
//! to people (`abbe inspect`, policies, recipient lists), so a character
//! that is invisible or reorders what follows would let `alice\u{200b}@…`
//! pass for `alice@…`. Such characters are refused wherever users give
//! names or identities.

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The first character of `text` that is invisible or changes how the text
/// around it is displayed, with its byte offset: controls (Cc), format
/// characters such as zero-width spaces and bidirectional overrides (Cf),
/// line and paragraph separators, private-use and unassigned code points,
/// spaces other than U+0020, and the blank letters that render as nothing
/// (Hangul fillers, the braille blank).
pub fn first_invisible(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| invisible(c))
}

/// Whether `c` is invisible or changes how the text around it is displayed
/// (see [`first_invisible`]).
pub fn invisible(c: char) -> bool {
    use GeneralCategory::*;
    match c.general_category() {
        Control | Format | LineSeparator | ParagraphSeparator | PrivateUse | Unassigned
        | Surrogate => true,
        SpaceSeparator => c != ' ',
        _ => matches!(
            c,
            '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}' | '\u{180E}'
        ),
    }
}

/// How a refused character is named in messages: its code point, never the
/// character itself (which would not show).
pub fn describe(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_and_bidi_characters_are_found() {
        for (text, at) in [
            ("alice\u{200b}@example.com", 5),
            ("\u{202e}moc.elpmaxe@ecila", 0),
            ("bob\u{2066}x", 3),
            ("a\u{feff}", 1),
            ("a\u{a0}b", 1),
            ("a\u{3000}b", 1),
            ("a\u{3164}", 1),
            ("a\u{e000}", 1),
            ("x\u{2028}y", 1),
            ("tab\tx", 3),
            ("a\u{ad}b", 1),
        ] {
            assert_eq!(first_invisible(text).map(|(i, _)| i), Some(at), "{text:?}");
        }
        for text in [
            "alice@example.com",
            "Zoë Müller",
            "医生",
            "a b",
            "naïve-café_1",
        ] {
            assert_eq!(first_invisible(text), None, "{text:?}");
        }
        assert_eq!(describe('\u{200b}'), "U+200B");
    }
}
