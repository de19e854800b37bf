//! Short forms notes are written in. A note says "Ref AW-23817", "appt Fri 10am", "Xmas at Mum's",
//! "Dr Okafor", "tel 555-0129"; a question asks for "the reference", "the appointment on Friday",
//! "Christmas", "the doctor", "the phone number". The analyzer reads each short form as the word it
//! stands for, in the index and in queries alike, so either spelling finds the other. Where the short
//! form is the usual word ("vet", "phone"), the long one is read as it instead.
//!
//! Only short forms with one reading in notes are here: not "sun", "sat" or "wed" (words of their
//! own), "mar" and "may" (verbs), "jan" (a name), "apr" (a rate), "hr" (a department), "min"
//! (minimum or minute), "doc" (a doctor or a document), "st" (street or saint).

/// Each spelling (lower case, sorted) and the word it is read as.
const SHORT_FORMS: &[(&str, &str)] = &[
    ("acct", "account"),
    ("addr", "address"),
    ("amt", "amount"),
    ("approx", "approximately"),
    ("appt", "appointment"),
    ("appts", "appointments"),
    ("aug", "august"),
    ("ave", "avenue"),
    ("b'day", "birthday"),
    ("bday", "birthday"),
    ("bro", "brother"),
    ("dec", "december"),
    ("dept", "department"),
    ("docs", "documents"),
    ("dr", "doctor"),
    ("feb", "february"),
    ("fri", "friday"),
    ("govt", "government"),
    ("hosp", "hospital"),
    ("hrs", "hours"),
    ("jul", "july"),
    ("jun", "june"),
    ("mgr", "manager"),
    ("mins", "minutes"),
    ("mon", "monday"),
    ("msg", "message"),
    ("mtg", "meeting"),
    ("mtgs", "meetings"),
    ("mths", "months"),
    ("nov", "november"),
    ("oct", "october"),
    ("pic", "picture"),
    ("pics", "pictures"),
    ("qty", "quantity"),
    ("rd", "road"),
    ("ref", "reference"),
    ("refs", "references"),
    ("sep", "september"),
    ("sept", "september"),
    ("sis", "sister"),
    ("tel", "phone"),
    ("telephone", "phone"),
    ("thu", "thursday"),
    ("thur", "thursday"),
    ("thurs", "thursday"),
    ("tmrw", "tomorrow"),
    ("tue", "tuesday"),
    ("tues", "tuesday"),
    ("uni", "university"),
    ("veterinarian", "vet"),
    ("veterinarians", "vets"),
    ("veterinary", "vet"),
    ("wk", "week"),
    ("wks", "weeks"),
    ("xmas", "christmas"),
    ("yr", "year"),
    ("yrs", "years"),
];

/// The word `word` (lower case) is read as, when it is one of several spellings of it.
pub(crate) fn read_as(word: &str) -> Option<&'static str> {
    SHORT_FORMS.binary_search_by(|(short, _)| short.cmp(&word)).ok().map(|i| SHORT_FORMS[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_unique() {
        assert!(SHORT_FORMS.windows(2).all(|w| w[0].0 < w[1].0), "SHORT_FORMS sorted, no repeats");
    }

    #[test]
    fn short_forms_read_as_their_word() {
        assert_eq!(read_as("ref"), Some("reference"));
        assert_eq!(read_as("xmas"), Some("christmas"));
        assert_eq!(read_as("fri"), Some("friday"));
        assert_eq!(read_as("veterinarian"), Some("vet"));
        for word in ["sun", "sat", "wed", "may", "mar", "jan", "apr", "hr", "min", "doc", "reference"] {
            assert_eq!(read_as(word), None, "{word}");
        }
    }
}
