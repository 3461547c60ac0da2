/// A key the user pressed, decoded from the terminal's bytes by ``KeyDecoder``.
///
/// Keys are named by what was pressed, not by what they do: ``LineEditorState`` decides that
/// (ctrl-D deletes a character, or ends the session on an empty line).
package enum Key: Sendable, Hashable {
    /// A printable character (typed or pasted).
    case character(Character)
    /// Return or Enter.
    case enter
    /// Tab (the editor ignores it: a tab would break the cursor arithmetic).
    case tab
    /// Backspace (DEL or ctrl-H).
    case backspace
    /// The forward-delete key.
    case delete
    case left, right, up, down, home, end
    /// Ctrl-left or alt-B.
    case wordLeft
    /// Ctrl-right or alt-F.
    case wordRight
    /// Ctrl and a letter, lowercase: `.control("a")` is ctrl-A.
    case control(Character)
}
