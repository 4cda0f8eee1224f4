//! Attribute sets (the attributes held by a key or labelling a ciphertext).

use std::collections::BTreeSet;

use super::ast::{validate_name, CmpOp};
use super::error::{ErrorKind, PolicyError};
use super::lex::{tokenize, Cursor, Tok};
use super::limits::MAX_ATTRIBUTES;
use super::numeric::key_markers;
use super::print::quote_name;

/// A sorted, deduplicated set of attributes.
///
/// Numeric attributes `name = value` are stored expanded into their
/// bag-of-bits markers (see [`super::numeric`]); [`AttributeSet::iter`],
/// [`AttributeSet::len`] and [`AttributeSet::contains`] see the expanded
/// strings, while [`AttributeSet::display_attrs`] returns the user-facing
/// list (`"doctor"`, `"age = 42"`).  The expanded size is limited to
/// [`MAX_ATTRIBUTES`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AttributeSet {
    attrs: BTreeSet<String>,
    display: Vec<String>,
    numeric: BTreeSet<String>,
}

impl AttributeSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a comma-separated list such as `doctor, cardiology, age = 42`.
    /// Names are bare (`[A-Za-z0-9_.:/@-]`, not a pure number) or quoted
    /// (`"head of ward"`, escapes `\"` and `\\`); `name = integer` declares a
    /// numeric attribute.  The empty string gives the empty set.
    pub fn parse(input: &str) -> Result<Self, PolicyError> {
        Self::parse_list(input).map_err(PolicyError::in_attribute_list)
    }

    fn parse_list(input: &str) -> Result<Self, PolicyError> {
        let toks = tokenize(input)?;
        let mut cur = Cursor::new(toks, input.len());
        let mut set = AttributeSet::new();
        if cur.peek().tok == Tok::End {
            return Ok(set);
        }
        loop {
            set.parse_one(&mut cur)?;
            match cur.peek().tok {
                Tok::End => return Ok(set),
                Tok::Comma => {
                    cur.bump();
                }
                Tok::Word(_) | Tok::Quoted(_) => {
                    return Err(cur.error("',' between two attributes (\"doctor, cardiology\")"))
                }
                _ => return Err(cur.error("',' or end of input")),
            }
        }
    }

    /// A set from a list whose items are each exactly one attribute,
    /// `name` or `name = integer` (a name bare or quoted, as in
    /// [`AttributeSet::parse`]). Items are never split: an item holding
    /// a list (`"a, b"`) is refused, naming the item, so a caller's list
    /// element cannot smuggle in more attributes. No items: the empty set.
    pub fn from_items<S: AsRef<str>>(items: &[S]) -> Result<Self, PolicyError> {
        let mut set = AttributeSet::new();
        for (index, item) in items.iter().enumerate() {
            let item = item.as_ref();
            let parsed = tokenize(item).and_then(|toks| {
                let mut cur = Cursor::new(toks, item.len());
                set.parse_one(&mut cur)?;
                match cur.peek().tok {
                    Tok::End => Ok(()),
                    _ => Err(cur.error("the end of the item (one attribute per item)")),
                }
            });
            parsed.map_err(|e| e.in_item(index, item).in_attribute_list())?;
        }
        Ok(set)
    }

    /// Parses one attribute (`name` or `name = integer`) at the cursor and
    /// adds it.
    fn parse_one(&mut self, cur: &mut Cursor<'_>) -> Result<(), PolicyError> {
        let t = cur.bump();
        let Some(name) = t.as_plain_name() else {
            return Err(PolicyError::at(
                ErrorKind::Syntax,
                t.pos,
                "an attribute name",
                t.describe(),
            ));
        };
        if cur.peek().tok == Tok::Cmp(CmpOp::Eq) {
            cur.bump();
            let vt = cur.bump();
            let Tok::Number(v) = vt.tok else {
                return Err(PolicyError::at(
                    ErrorKind::Syntax,
                    vt.pos,
                    "an unsigned integer",
                    vt.describe(),
                ));
            };
            self.insert_numeric(&name, v)
                .map_err(|e| e.with_position(t.pos))
        } else {
            self.insert(&name).map_err(|e| e.with_position(t.pos))
        }
    }

    /// Builds a set from plain attribute names.
    pub fn from_names<I, S>(names: I) -> Result<Self, PolicyError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut set = AttributeSet::new();
        for n in names {
            set.insert(n.as_ref())?;
        }
        Ok(set)
    }

    fn check_room(&self, extra: usize) -> Result<(), PolicyError> {
        if self.attrs.len().saturating_add(extra) > MAX_ATTRIBUTES {
            return Err(PolicyError::new(
                ErrorKind::Limit,
                format!("at most {MAX_ATTRIBUTES} attributes (after numeric expansion)"),
                format!("{} attributes", self.attrs.len().saturating_add(extra)),
            ));
        }
        Ok(())
    }

    /// Adds a plain attribute (no-op if already present).
    pub fn insert(&mut self, name: &str) -> Result<(), PolicyError> {
        validate_name(name)?;
        if self.attrs.contains(name) {
            return Ok(());
        }
        self.check_room(1)?;
        self.attrs.insert(name.to_string());
        self.display.push(quote_name(name));
        Ok(())
    }

    /// Adds a numeric attribute `name = value` as bag-of-bits markers.
    /// A second, different value for the same name is an error.
    pub fn insert_numeric(&mut self, name: &str, value: u64) -> Result<(), PolicyError> {
        validate_name(name)?;
        let shown = format!("{} = {value}", quote_name(name));
        if self.numeric.contains(name) {
            if self.display.contains(&shown) {
                return Ok(());
            }
            return Err(PolicyError::new(
                ErrorKind::Argument,
                "a single value per numeric attribute",
                format!("a second value for '{}'", super::lex::truncate(name, 40)),
            ));
        }
        let markers = key_markers(name, value);
        self.check_room(markers.len())?;
        self.attrs.extend(markers);
        self.numeric.insert(name.to_string());
        self.display.push(shown);
        Ok(())
    }

    /// Whether the (expanded) attribute string is in the set.
    pub fn contains(&self, attr: &str) -> bool {
        self.attrs.contains(attr)
    }

    /// The value of numeric attribute `name`, read from its exact marker
    /// `name#=value`.
    pub fn numeric_value(&self, name: &str) -> Option<u64> {
        let prefix = super::numeric::exact_marker(name, 0);
        let prefix = prefix.trim_end_matches('0');
        let marker = self.attrs.range(prefix.to_string()..).next()?;
        marker.strip_prefix(prefix)?.parse().ok()
    }

    /// The names of the numeric attributes, sorted.
    pub fn numeric_names(&self) -> impl ExactSizeIterator<Item = &String> + '_ {
        self.numeric.iter()
    }

    /// Whether a key holding this set satisfies the leaf `leaf` of an
    /// access tree: it holds the attribute, or, for the negated exact
    /// marker `x#!=v` of a negating tree
    /// ([`super::Policy::to_negating_tree`]), it holds `x` with a value
    /// other than `v`.
    pub fn satisfies_leaf(&self, leaf: &str) -> bool {
        match super::numeric::parse_negated_exact_marker(leaf) {
            Some((name, value)) => self.numeric_value(name).is_some_and(|v| v != value),
            None => self.contains(leaf),
        }
    }

    /// Every attribute name, the numeric ones too (`age` of `age = 42`),
    /// sorted.
    pub fn names(&self) -> Vec<String> {
        // Markers are the only strings holding '#', which names may not.
        let plain = self.attrs.iter().filter(|a| !a.contains('#'));
        let mut names: Vec<String> = plain.chain(&self.numeric).cloned().collect();
        names.sort();
        names
    }

    /// Iterates over the expanded attribute strings in sorted order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.attrs.iter().map(String::as_str)
    }

    /// The position of each expanded attribute in sorted order (headers
    /// list their per-attribute elements in this order).
    pub fn positions(&self) -> std::collections::BTreeMap<String, usize> {
        self.iter()
            .enumerate()
            .map(|(i, x)| (x.to_owned(), i))
            .collect()
    }

    /// Number of expanded attribute strings.
    pub fn len(&self) -> usize {
        self.attrs.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.attrs.is_empty()
    }

    /// The user-facing attributes in insertion order, e.g.
    /// `["doctor", "cardiology", "age = 42"]` (names quoted when needed).
    pub fn display_attrs(&self) -> Vec<String> {
        self.display.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_plain_and_the_numeric_ones() {
        let set = AttributeSet::parse("nurse, age = 42, \"head of ward\"").unwrap();
        assert_eq!(set.names(), ["age", "head of ward", "nurse"]);
        assert!(AttributeSet::new().names().is_empty());
    }

    #[test]
    fn a_missing_comma_is_named() {
        let e = AttributeSet::parse("doctor cardiology").unwrap_err();
        assert_eq!(e.position(), Some(7));
        assert!(e.to_string().contains("',' between two attributes"), "{e}");
    }

    #[test]
    fn parse_basic() {
        let s = AttributeSet::parse("doctor, cardiology, age = 42").unwrap();
        assert!(s.contains("doctor"));
        assert!(s.contains("cardiology"));
        assert!(s.contains("age#=42"));
        assert!(s.contains("age#b05=1"));
        assert_eq!(s.len(), 2 + 128);
        assert_eq!(s.display_attrs(), vec!["doctor", "cardiology", "age = 42"]);
        let sorted: Vec<&str> = s.iter().collect();
        let mut check = sorted.clone();
        check.sort();
        assert_eq!(sorted, check);
    }

    #[test]
    fn parse_quoted_and_dupes() {
        let s = AttributeSet::parse(r#""head of ward", x, x, "a\"b""#).unwrap();
        assert!(s.contains("head of ward"));
        assert!(s.contains("a\"b"));
        assert_eq!(s.len(), 3);
        assert_eq!(
            s.display_attrs(),
            vec!["\"head of ward\"", "x", "\"a\\\"b\""]
        );
        assert!(AttributeSet::parse("").unwrap().is_empty());
    }

    #[test]
    fn parse_errors() {
        let e = AttributeSet::parse("a, , b").unwrap_err();
        assert_eq!(e.position(), Some(3));
        assert!(AttributeSet::parse("a b").is_err());
        assert!(AttributeSet::parse("a,").is_err());
        assert!(AttributeSet::parse("age = x").is_err());
        assert!(AttributeSet::parse("age = 1, age = 2").is_err());
        assert!(AttributeSet::parse("age = 1, age = 1").is_ok());
        assert!(AttributeSet::parse("\"a#b\"").is_err());
        assert!(AttributeSet::parse("42").is_err());
        let many: Vec<String> = (0..33).map(|i| format!("n{i} = {i}")).collect();
        let e = AttributeSet::parse(&many.join(", ")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Limit);
        let many: Vec<String> = (0..4097).map(|i| format!("a{i}")).collect();
        assert!(AttributeSet::parse(&many.join(",")).is_err());
        assert!(AttributeSet::from_names(many.iter().take(4096)).is_ok());
    }

    #[test]
    fn from_items_takes_one_attribute_per_item() {
        let s =
            AttributeSet::from_items(&["doctor", "age = 42", r#""head of ward, east""#]).unwrap();
        assert_eq!(
            s,
            AttributeSet::parse(r#"doctor, age = 42, "head of ward, east""#).unwrap()
        );
        assert!(s.contains("head of ward, east") && !s.contains("east"));
        assert!(AttributeSet::from_items::<&str>(&[]).unwrap().is_empty());
        // An item that holds more than one attribute is refused, naming it.
        let e = AttributeSet::from_items(&["doctor", "department = 7, admin"]).unwrap_err();
        assert_eq!((e.item(), e.position()), (Some(1), Some(14)));
        assert_eq!(
            e.to_string(),
            "attribute list error in list item [1] \"department = 7, admin\" at byte 14: \
             expected the end of the item (one attribute per item) but found ','"
        );
        for bad in [
            "a, b",
            "a b",
            "a,",
            "",
            " ",
            "age = x",
            "42",
            "\"a#b\"",
            "a = 1 = 2",
        ] {
            let e = AttributeSet::from_items(&["ok", bad]).unwrap_err();
            assert_eq!(e.item(), Some(1), "{bad:?}");
        }
        assert!(AttributeSet::from_items(&["age = 1", "age = 2"]).is_err());
        let many: Vec<String> = (0..4097).map(|i| format!("a{i}")).collect();
        assert!(AttributeSet::from_items(&many).is_err());
        assert_eq!(AttributeSet::from_items(&many[..4096]).unwrap().len(), 4096);
    }
}
