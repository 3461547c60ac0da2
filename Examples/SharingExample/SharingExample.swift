// Typed sharing with a visitor (SPEC.md, worked example): a chat shares a `User`, a `Song` or a
// `Playlist` to Facebook, Line or Instagram, each destination building its own payload.
//
// - Models (`Models/`) know one thing: `accept(_ policy:)` calls `policy.visit(self)`.
// - Destinations (`Destinations/`) implement `SharePolicy`: one `visit` per concrete model.
// - A new destination is a new `SharePolicy`: no model changes.
// - A new model adds a `visit` requirement to `SharePolicy`: every destination stops compiling
//   until it handles the model (there are deliberately no default implementations).
