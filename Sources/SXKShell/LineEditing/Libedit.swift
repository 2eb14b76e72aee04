import CLibedit

/// libedit, loaded when the line editor or the history file is first used (CLibedit's sxk_edit.h):
/// a one-shot that does neither never maps it.
enum Libedit {
    /// Nil once libedit is loaded; else why it could not be (one line, with the package to install).
    static var loadError: String? {
        sxk_edit_load() == 0 ? nil : String(cString: sxk_edit_load_error())
    }
}
