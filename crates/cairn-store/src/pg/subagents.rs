//! Sub-agent spawn records on the shared store. A sub-agent's audience is never wider than its
//! parent's, and only the spawn record says who the parent is: a host that served a child without it
//! would treat the child as the owner's. So every host reads and writes them here, in the shapes
//! SQLite holds them ([`crate::SubagentLink`]).

use postgres::Row;

use super::PgStore;
use crate::{Result, SubagentEnd, SubagentLink};

const COLUMNS: &str = "child_key, parent_key, run_id, agent_id, label, mode, parent_turns, parent_intent, task, \
                       spawned_at, ended_at, outcome, reason, error";

fn decode(r: &Row) -> SubagentLink {
    let turns: String = r.get(6);
    SubagentLink {
        child: r.get(0),
        parent: r.get(1),
        run_id: r.get(2),
        agent_id: r.get(3),
        label: r.get(4),
        mode: r.get(5),
        parent_turns: serde_json::from_str(&turns).unwrap_or_default(),
        parent_intent: r.get(7),
        task: r.get(8),
        spawned_at: r.get(9),
        ended_at: r.get(10),
        outcome: r.get(11),
        reason: r.get(12),
        error: r.get(13),
    }
}

impl PgStore {
    /// Records a spawn, as [`crate::SqliteStore::put_subagent`] does.
    pub fn put_subagent(&mut self, link: &SubagentLink) -> Result<()> {
        let turns = serde_json::to_string(&link.parent_turns).unwrap_or_else(|_| "[]".into());
        for value in [&link.child, &link.parent, &turns].into_iter().chain(link.task.as_ref()) {
            super::check_text(&link.child, "the spawn record", value)?;
        }
        self.client()?.execute(
            "INSERT INTO subagents (child_key, parent_key, run_id, agent_id, label, mode, parent_turns, \
             parent_intent, task, spawned_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             ON CONFLICT (child_key) DO UPDATE SET parent_key = excluded.parent_key, run_id = excluded.run_id, \
             agent_id = excluded.agent_id, label = excluded.label, mode = excluded.mode, \
             parent_turns = excluded.parent_turns, parent_intent = excluded.parent_intent, \
             task = coalesce(subagents.task, excluded.task)",
            &[
                &link.child,
                &link.parent,
                &link.run_id,
                &link.agent_id,
                &link.label,
                &link.mode,
                &turns,
                &link.parent_intent,
                &link.task,
                &link.spawned_at,
            ],
        )?;
        Ok(())
    }

    /// The spawn record of `child`, if one was made.
    pub fn subagent(&self, child: &str) -> Result<Option<SubagentLink>> {
        let row = self
            .client()?
            .query_opt(&format!("SELECT {COLUMNS} FROM subagents WHERE child_key = $1"), &[&child])?;
        Ok(row.as_ref().map(decode))
    }

    /// Every spawn record, oldest first.
    pub fn subagents(&self) -> Result<Vec<SubagentLink>> {
        let rows = self.client()?.query(
            &format!("SELECT {COLUMNS} FROM subagents ORDER BY spawned_at, child_key COLLATE \"C\""),
            &[],
        )?;
        Ok(rows.iter().map(decode).collect())
    }

    /// Remembers the child's task unless one is known; whether it was set.
    pub fn set_subagent_task(&mut self, child: &str, task: &str) -> Result<bool> {
        super::check_text(child, "the task", task)?;
        let n = self.client()?.execute(
            "UPDATE subagents SET task = $2 WHERE child_key = $1 AND task IS NULL",
            &[&child, &task],
        )?;
        Ok(n > 0)
    }

    /// Records how the child ended; `false` when no spawn of it was recorded.
    pub fn end_subagent(&mut self, child: &str, end: &SubagentEnd) -> Result<bool> {
        let n = self.client()?.execute(
            "UPDATE subagents SET ended_at = $2, outcome = $3, reason = $4, error = $5 WHERE child_key = $1",
            &[&child, &end.at, &end.outcome, &end.reason, &end.error],
        )?;
        Ok(n > 0)
    }

    /// Drops the spawn record of `child`; whether there was one.
    pub fn remove_subagent(&mut self, child: &str) -> Result<bool> {
        Ok(self.client()?.execute("DELETE FROM subagents WHERE child_key = $1", &[&child])? > 0)
    }
}
