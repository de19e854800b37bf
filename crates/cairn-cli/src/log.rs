//! What the libraries report through `tracing`, shown the way the CLI shows everything else: one
//! `warning: …`, `error: …` or `info: …` line on stderr per event (`info` only from Cairn's own crates).

use std::fmt;

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::FmtContext;
use tracing_subscriber::fmt::format::{FormatEvent, FormatFields, Writer};
use tracing_subscriber::registry::LookupSpan;

/// `warning: message` / `error: message`.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, N>, mut w: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let label = match *event.metadata().level() {
            Level::ERROR => "error",
            Level::WARN => "warning",
            Level::INFO => "info",
            _ => "debug",
        };
        write!(w, "{label}: ")?;
        ctx.field_format().format_fields(w.by_ref(), event)?;
        writeln!(w)
    }
}

/// Installs the stderr logger for this process: Cairn's own warnings, errors and notices (a daemon's
/// config reload), and only warnings and errors of the libraries beneath it.
pub(crate) fn init() {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = tracing_subscriber::filter::Targets::new()
        .with_default(Level::WARN)
        .with_target("cairn_serve", Level::INFO)
        .with_target("cairn_engine", Level::INFO);
    let layer =
        tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false).event_format(Plain);
    let _ = tracing_subscriber::registry().with(layer).with(filter).try_init();
}
