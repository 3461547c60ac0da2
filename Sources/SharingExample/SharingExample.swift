// Typed sharing with a visitor (SPEC.md, worked example) — built with issue 8.
