//! `[aci]` settings: resolved by the binary, passed down typed. Defaults are written here once.

use serde::{Deserialize, Serialize};

/// Adaptive context injection (`[aci]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AciSettings {
    /// The workspace file where drafts awaiting review are listed (one line each).
    pub queue_file: String,
    /// The files a host injects in bulk, every turn, without tiering: the report's baseline and the
    /// list `cairn bootstrap` shows when the tiered bootstrap is off.
    pub bulk_files: Vec<String>,
    /// Workspace files a backup holds (the queue file is always added).
    pub backup_files: Vec<String>,
    /// A backup older than this many hours does not count as fresh (0: no limit; the content must
    /// match either way).
    pub backup_max_age_hours: u64,
    /// Token cap of `TOOLS_COMPACT.md`.
    pub tools_max_tokens: usize,
    /// Token cap of a topic or main session's tiered bootstrap set, for the report.
    pub session_max_tokens: usize,
    /// Wisdom compression.
    pub wisdom: WisdomSettings,
    /// The chat endpoint that drafts wisdom (none: a worksheet for a person is written instead).
    pub llm: LlmSettings,
}

impl Default for AciSettings {
    fn default() -> Self {
        AciSettings {
            queue_file: "DAILY_EXECUTION_QUEUE.md".into(),
            bulk_files: [
                "AGENTS.md",
                "SOUL.md",
                "TOOLS.md",
                "IDENTITY.md",
                "USER.md",
                "HEARTBEAT.md",
                "MEMORY.md",
            ]
            .map(String::from)
            .to_vec(),
            backup_files: ["SOUL.md", "AGENTS.md", "TOOLS.md", "TOOLS_COMPACT.md", "USER.md", "HEARTBEAT.md"]
                .map(String::from)
                .to_vec(),
            backup_max_age_hours: 24,
            tools_max_tokens: 300,
            session_max_tokens: 500,
            wisdom: WisdomSettings::default(),
            llm: LlmSettings::default(),
        }
    }
}

/// Wisdom compression (`[aci.wisdom]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WisdomSettings {
    /// The heading (prefix, any case) of AGENTS.md's section of lessons.
    pub agents_section: String,
    /// The file of lessons read whole.
    pub lessons_file: String,
    /// Headings (prefixes, any case) of MEMORY.md's sections of lessons and decisions.
    pub memory_sections: Vec<String>,
    /// Headings (prefixes, any case) of the lessons in a daily note.
    pub daily_sections: Vec<String>,
    /// Folders holding daily notes named `YYYY-MM-DD.md`.
    pub daily_dirs: Vec<String>,
    /// Daily notes of the last this many days are read.
    pub daily_days: i64,
    /// A compression is due after this many days...
    pub cadence_days: i64,
    /// ... or this many new lessons.
    pub cadence_lessons: usize,
    /// Fewest entries in the section.
    pub min_entries: usize,
    /// Most entries in the section.
    pub max_entries: usize,
    /// Most words in an entry's wisdom (after its bold name).
    pub max_words: usize,
    /// Fewest source lessons an entry covers.
    pub min_lessons: usize,
    /// Token cap of the wisdom section.
    pub max_tokens: usize,
    /// Token cap of the whole SOUL.md.
    pub soul_max_tokens: usize,
    /// The entry that must be in every wisdom section, as written (whitespace aside): the trigger that
    /// replaces bulk injection of MEMORY.md.
    pub required_entry: String,
}

impl Default for WisdomSettings {
    fn default() -> Self {
        WisdomSettings {
            agents_section: "Operational Lessons".into(),
            lessons_file: "LESSONS_LEARNED.md".into(),
            memory_sections: vec!["Lessons".into(), "Decisions".into()],
            daily_sections: vec!["Lessons".into()],
            daily_dirs: vec!["memory/daily".into(), "memory".into()],
            daily_days: 30,
            cadence_days: 30,
            cadence_lessons: 10,
            min_entries: 12,
            max_entries: 15,
            max_words: 15,
            min_lessons: 3,
            max_tokens: 150,
            soul_max_tokens: 200,
            required_entry:
                "**When context feels incomplete, check your memory.** Read `memory/YYYY-MM-DD.md` \
                             and `MEMORY.md` when historical knowledge is needed."
                    .into(),
        }
    }
}

/// The chat endpoint (`[aci.llm]`): any OpenAI-compatible server (`POST {endpoint}/v1/chat/completions`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmSettings {
    /// Base URL, without `/v1` (none: `cairn wisdom draft` writes a worksheet instead).
    pub endpoint: Option<String>,
    /// The model asked.
    pub model: String,
    /// The environment variable holding the API key, sent as a bearer token (none: no key).
    pub api_key_env: Option<String>,
    /// How long one attempt may take.
    pub timeout_ms: u64,
    /// Further attempts after a timeout, a refused connection or a 5xx answer.
    pub retries: u32,
}

impl Default for LlmSettings {
    fn default() -> Self {
        LlmSettings {
            endpoint: None,
            model: "local".into(),
            api_key_env: None,
            timeout_ms: 120_000,
            retries: 2,
        }
    }
}
