//! Premises: Boolean formulas over assumption ids, as written in
//! `__VERIFIER_assert_verified(cond, "premise")` (`a`, `a && b`, `a || !b`,
//! parentheses, `true`, `false`), and their meaning as a set of assumption
//! states. An empty premise (`""`, or only spaces) is `true`: it is the
//! natural way to write "verified without assumptions", and a premise
//! lists what the verification assumed, which is then nothing.

use crate::AssumptionId;
use std::fmt;

/// A Boolean formula over assumption ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Premise {
    /// Always holds: the check is verified without condition.
    True,
    /// Never holds: the check is unverified.
    False,
    /// The assumption holds (every `assumed` of this id held so far).
    Id(AssumptionId),
    /// Negation.
    Not(Box<Premise>),
    /// Conjunction.
    And(Box<Premise>, Box<Premise>),
    /// Disjunction (also how the premises of several sources combine).
    Or(Box<Premise>, Box<Premise>),
}

/// A premise that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PremiseError {
    /// The text.
    pub text: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PremiseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "premise {:?}: {}", self.text, self.message)
    }
}

impl Premise {
    /// Parses `text`, naming each identifier through `id` (which interns
    /// assumption names). No tokens at all is `true` (no assumption).
    pub fn parse(text: &str, id: &mut dyn FnMut(&str) -> AssumptionId) -> Result<Premise, PremiseError> {
        let tokens = tokenize(text).map_err(|message| PremiseError { text: text.into(), message })?;
        if tokens.is_empty() {
            return Ok(Premise::True);
        }
        let mut p = Parser { tokens, pos: 0, id };
        let e = p.or().map_err(|message| PremiseError { text: text.into(), message })?;
        if p.pos != p.tokens.len() {
            return Err(PremiseError { text: text.into(), message: format!("unexpected {:?}", p.tokens[p.pos]) });
        }
        Ok(e)
    }

    /// `self || other`, simplified when either side is a constant.
    pub fn or(self, other: Premise) -> Premise {
        match (self, other) {
            (Premise::True, _) | (_, Premise::True) => Premise::True,
            (Premise::False, x) | (x, Premise::False) => x,
            (a, b) if a == b => a,
            (a, b) => Premise::Or(Box::new(a), Box::new(b)),
        }
    }

    /// Whether it holds in `state` (bit `i` set: assumption `i` holds).
    pub fn holds(&self, state: u32) -> bool {
        match self {
            Premise::True => true,
            Premise::False => false,
            Premise::Id(a) => state >> a.0 & 1 == 1,
            Premise::Not(p) => !p.holds(state),
            Premise::And(a, b) => a.holds(state) && b.holds(state),
            Premise::Or(a, b) => a.holds(state) || b.holds(state),
        }
    }

    /// The assumption ids it mentions.
    pub fn ids(&self, out: &mut Vec<AssumptionId>) {
        match self {
            Premise::True | Premise::False => {}
            Premise::Id(a) => {
                if !out.contains(a) {
                    out.push(*a)
                }
            }
            Premise::Not(p) => p.ids(out),
            Premise::And(a, b) | Premise::Or(a, b) => {
                a.ids(out);
                b.ids(out)
            }
        }
    }

    /// The ids it mentions under a negation (where holding less can make
    /// it hold more).
    pub fn negated_ids(&self, out: &mut Vec<AssumptionId>) {
        fn walk(p: &Premise, negated: bool, out: &mut Vec<AssumptionId>) {
            match p {
                Premise::True | Premise::False => {}
                Premise::Id(a) => {
                    if negated && !out.contains(a) {
                        out.push(*a)
                    }
                }
                Premise::Not(p) => walk(p, !negated, out),
                Premise::And(a, b) | Premise::Or(a, b) => {
                    walk(a, negated, out);
                    walk(b, negated, out)
                }
            }
        }
        walk(self, false, out)
    }

    /// The same formula with every id replaced by `f(id)`.
    pub fn map_ids(&self, f: &dyn Fn(AssumptionId) -> AssumptionId) -> Premise {
        match self {
            Premise::True => Premise::True,
            Premise::False => Premise::False,
            Premise::Id(a) => Premise::Id(f(*a)),
            Premise::Not(p) => Premise::Not(Box::new(p.map_ids(f))),
            Premise::And(a, b) => Premise::And(Box::new(a.map_ids(f)), Box::new(b.map_ids(f))),
            Premise::Or(a, b) => Premise::Or(Box::new(a.map_ids(f)), Box::new(b.map_ids(f))),
        }
    }

    /// Prints it with assumption names from `name`.
    pub fn display<'a>(&'a self, name: &'a dyn Fn(AssumptionId) -> String) -> impl fmt::Display + 'a {
        struct D<'a>(&'a Premise, &'a dyn Fn(AssumptionId) -> String);
        impl fmt::Display for D<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.0 {
                    Premise::True => write!(f, "true"),
                    Premise::False => write!(f, "false"),
                    Premise::Id(a) => write!(f, "{}", (self.1)(*a)),
                    Premise::Not(p) => write!(f, "!{}", D(p, self.1)),
                    Premise::And(a, b) => write!(f, "({} && {})", D(a, self.1), D(b, self.1)),
                    Premise::Or(a, b) => write!(f, "({} || {})", D(a, self.1), D(b, self.1)),
                }
            }
        }
        D(self, name)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Name(String),
    Not,
    And,
    Or,
    Open,
    Close,
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '!' => out.push(Token::Not),
            '(' => out.push(Token::Open),
            ')' => out.push(Token::Close),
            '&' | '|' => {
                if chars.next_if(|&(_, d)| d == c).is_none() {
                    return Err(format!("'{c}' at {i}: write '{c}{c}'"));
                }
                out.push(if c == '&' { Token::And } else { Token::Or });
            }
            c if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' || c == ':' => {
                let mut name = String::from(c);
                while let Some(&(_, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' || d == '.' || d == '-' || d == ':' {
                        name.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Token::Name(name));
            }
            c => return Err(format!("unexpected '{c}' at {i}")),
        }
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: Vec<Token>,
    pos: usize,
    id: &'a mut dyn FnMut(&str) -> AssumptionId,
}

impl Parser<'_> {
    fn or(&mut self) -> Result<Premise, String> {
        let mut e = self.and()?;
        while self.tokens.get(self.pos) == Some(&Token::Or) {
            self.pos += 1;
            let r = self.and()?;
            e = Premise::Or(Box::new(e), Box::new(r));
        }
        Ok(e)
    }
    fn and(&mut self) -> Result<Premise, String> {
        let mut e = self.unary()?;
        while self.tokens.get(self.pos) == Some(&Token::And) {
            self.pos += 1;
            let r = self.unary()?;
            e = Premise::And(Box::new(e), Box::new(r));
        }
        Ok(e)
    }
    fn unary(&mut self) -> Result<Premise, String> {
        match self.tokens.get(self.pos).cloned() {
            Some(Token::Not) => {
                self.pos += 1;
                Ok(Premise::Not(Box::new(self.unary()?)))
            }
            Some(Token::Open) => {
                self.pos += 1;
                let e = self.or()?;
                if self.tokens.get(self.pos) != Some(&Token::Close) {
                    return Err("missing ')'".into());
                }
                self.pos += 1;
                Ok(e)
            }
            Some(Token::Name(n)) => {
                self.pos += 1;
                Ok(match n.as_str() {
                    "true" => Premise::True,
                    "false" => Premise::False,
                    _ => Premise::Id((self.id)(&n)),
                })
            }
            Some(t) => Err(format!("unexpected {t:?}")),
            None => Err("unexpected end".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Premise, PremiseError> {
        let mut names: Vec<String> = Vec::new();
        Premise::parse(text, &mut |n| {
            let i = names.iter().position(|m| m == n).unwrap_or_else(|| {
                names.push(n.into());
                names.len() - 1
            });
            AssumptionId(i as u32)
        })
    }

    #[test]
    fn an_empty_premise_and_true_mean_no_assumption() {
        assert_eq!(parse(""), Ok(Premise::True));
        assert_eq!(parse("  \t"), Ok(Premise::True));
        assert_eq!(parse("true"), Ok(Premise::True));
        assert_eq!(parse("(true)"), Ok(Premise::True));
        assert!(parse("").unwrap().holds(0));
    }

    #[test]
    fn formulas_parse_with_and_binding_tighter_than_or() {
        let p = parse("a || !b && c").unwrap();
        let (a, b, c) = (1u32, 2u32, 4u32);
        assert!(p.holds(a));
        assert!(p.holds(c));
        assert!(!p.holds(b | c));
        assert!(!p.holds(0));
    }

    #[test]
    fn bad_premises_are_errors_that_say_why() {
        assert_eq!(parse("a &&").unwrap_err().message, "unexpected end");
        assert_eq!(parse("(a").unwrap_err().message, "missing ')'");
        assert_eq!(parse("a & b").unwrap_err().message, "'&' at 2: write '&&'");
        assert!(parse("a b").unwrap_err().message.starts_with("unexpected"));
    }
}
