//! How a query's text divides for coverage: into clauses, each a question of its own
//! ([`clause_starts`]), and into what it quotes ([`quoted`]).

use std::ops::Range;

/// Words that refer back to someone or something named before them: a clause holding one continues
/// the clause before it ("My colleague's son is starting university. What should *he* pack?" asks one
/// thing, and a note about packing a suitcase answers none of it).
const BACK_REFERENCES: &[&str] =
    &["he", "him", "his", "she", "her", "hers", "it", "its", "they", "them", "their", "theirs"];

/// The byte at which each clause of the query starts: a prompt often asks several things ("what is
/// the status of apollo, and should storm alerts bypass quiet hours?"), and a note that answers one of
/// them is relevant. Clauses end at `.`, `?`, `!`, `;`, a line break, or ", and" / ", but" /
/// ", also"; a clause that refers back to what came before ([`BACK_REFERENCES`]) is part of the one
/// before it. (A clause of a single word joins the next one: the lexical lane counts the words.)
pub(super) fn clause_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let end = match bytes[i] {
            b'.' | b'?' | b'!' | b';' | b'\n' => Some(i + 1),
            b',' => [" and ", " but ", " also "]
                .iter()
                .find(|w| lower[i + 1..].starts_with(*w))
                .map(|w| i + 1 + w.len()),
            _ => None,
        };
        if let Some(e) = end {
            if starts.last().is_some_and(|&s| s < i) {
                starts.push(e);
            }
            i = e;
        } else {
            i += 1;
        }
    }
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([lower.len()]).collect();
    let refers_back = |from: usize, to: usize| {
        lower[from..to].split(|c: char| !c.is_alphanumeric()).any(|w| BACK_REFERENCES.contains(&w))
    };
    starts
        .iter()
        .zip(ends)
        .enumerate()
        .filter(|&(n, (&s, e))| n == 0 || !refers_back(s, e))
        .map(|(_, (&s, _))| s)
        .collect()
}

/// The byte ranges of `text` inside quotation marks ("what is the Polish word for *'thank you'*?"):
/// words written there are what the prompt asks about, even words that elsewhere only frame a
/// question. A single quote opens only before a letter or digit and after none ("colleague's" holds
/// no quotation), and closes only before none ("'don't wait'" is one quotation).
pub(super) fn quoted(text: &str) -> Vec<Range<usize>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let alnum = |i: usize| chars.get(i).is_some_and(|(_, c)| c.is_alphanumeric());
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let close: &[char] = match chars[i].1 {
            '"' => &['"'],
            '“' => &['”', '"'],
            '\'' | '‘' if !(i > 0 && alnum(i - 1)) && alnum(i + 1) => &['\'', '’'],
            _ => {
                i += 1;
                continue;
            }
        };
        let single = close.contains(&'\'');
        let end = (i + 1..chars.len()).find(|&j| close.contains(&chars[j].1) && !(single && alnum(j + 1)));
        match end {
            Some(j) => {
                out.push(chars[i].0 + chars[i].1.len_utf8()..chars[j].0);
                i = j + 1;
            }
            None => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clauses of `text` that hold anything, as written.
    fn clauses(text: &str) -> Vec<&str> {
        let starts = clause_starts(text);
        let ends = starts.iter().skip(1).copied().chain([text.len()]);
        starts.iter().zip(ends).map(|(&s, e)| text[s..e].trim()).filter(|c| !c.is_empty()).collect()
    }

    #[test]
    fn a_clause_ends_at_a_sentence_or_a_joined_question() {
        assert_eq!(
            clauses("what is the status of apollo, and should storm alerts bypass quiet hours?"),
            ["what is the status of apollo, and", "should storm alerts bypass quiet hours?"]
        );
        assert_eq!(clauses("Thanks! Where is the spare key?"), ["Thanks!", "Where is the spare key?"]);
        assert_eq!(clauses("no clause ends here"), ["no clause ends here"]);
    }

    #[test]
    fn a_clause_that_refers_back_continues_the_one_before() {
        assert_eq!(
            clauses("My colleague's son is starting university. What should he pack?"),
            ["My colleague's son is starting university. What should he pack?"]
        );
        assert_eq!(
            clauses("Where is the fence quote? Did Tomasz pay it, and when is the builder coming?"),
            ["Where is the fence quote? Did Tomasz pay it, and", "when is the builder coming?"]
        );
        // "the" and "there" refer back to nothing; "it's" does.
        assert_eq!(
            clauses("Where is the key? Is there a spare?"),
            ["Where is the key?", "Is there a spare?"]
        );
        assert_eq!(clauses("I booked the hotel. It's in Ghent?"), ["I booked the hotel. It's in Ghent?"]);
    }

    #[test]
    fn quotations_are_found_and_apostrophes_are_not() {
        let spans = |t: &'static str| quoted(t).into_iter().map(|r| &t[r]).collect::<Vec<_>>();
        assert_eq!(spans("What is the Polish word for 'thank you'?"), ["thank you"]);
        assert_eq!(spans("what does \"catch up\" mean here?"), ["catch up"]);
        assert_eq!(spans("she said “good night” and ‘don’t wait’"), ["good night", "don’t wait"]);
        assert_eq!(spans("my colleague's son's car"), Vec::<&str>::new());
        assert_eq!(spans("the word 'don't' alone"), ["don't"]);
        assert_eq!(spans("an 'unclosed quotation"), Vec::<&str>::new());
        assert_eq!(spans("the kids' bikes and the dogs' leads"), Vec::<&str>::new());
    }
}
