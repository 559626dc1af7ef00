"""The self-contained HTML views of finished runs (`report.html`) and comparisons
(`comparison.html`): Jinja2 templates shipped with the package, everything from an agent escaped,
inline CSS and JS only, no server and no network."""
