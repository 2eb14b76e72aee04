import Foundation
import SXKShell

/// A terminal screen as the bytes leave it: printable text (wide characters taking two columns,
/// rows wrapping at the width), `\r`, `\n`, and the cursor and erase sequences the line editor
/// uses (CSI A B C D G K J). Enough to tell which rows a redraw wrote over.
struct ScreenModel {
    private(set) var rows: [[Character]] = [[]]
    private var row = 0, column = 0
    let columns: Int
    /// False: cursor moves between rows (CSI A, B, J) are ignored, for a slice of a stream.
    let followsRowMoves: Bool

    init(columns: Int, followsRowMoves: Bool = true) {
        self.columns = columns
        self.followsRowMoves = followsRowMoves
    }

    init(_ bytes: [UInt8], columns: Int) {
        self.init(columns: columns)
        feed(bytes)
    }

    /// The rows as text (a wide character's second column is its own), without the spaces at their ends.
    var lines: [String] { rows.map { String($0.filter { $0 != "\u{0}" }).trimmingCharacters(in: .whitespaces) } }

    mutating func feed(_ bytes: [UInt8]) {
        let text = Array(String(decoding: bytes, as: UTF8.self))
        var i = 0
        while i < text.count {
            let c = text[i]
            switch c {
            case "\u{1B}":
                guard let sequence = Self.escape(text, at: i) else { return }
                i = sequence.next
                if let final = sequence.final {
                    let n = Int(sequence.parameter.split(separator: ";").first ?? "") ?? 1
                    switch final {
                    case "A" where followsRowMoves: row = max(0, row - n)
                    case "B" where followsRowMoves: row += n; ensureRow()
                    case "C": column = min(columns - 1, column + n)
                    case "D": column = max(0, column - n)
                    case "G": column = max(0, n - 1)
                    case "K": ensureRow(); if column < rows[row].count { rows[row].removeSubrange(column...) }
                    case "J" where followsRowMoves: ensureRow(); if column < rows[row].count { rows[row].removeSubrange(column...) }; rows.removeSubrange((row + 1)...)
                    default: break
                    }
                }
                continue
            case "\r": column = 0
            case "\n", "\r\n": row += 1; column = 0; ensureRow()
            case "\u{07}", "\u{08}", "\u{01}": break
            default:
                let width = max(1, TextWidth.width(String(c)))
                if column + width > columns { row += 1; column = 0 }
                ensureRow()
                while rows[row].count < column { rows[row].append(" ") }
                if column < rows[row].count { rows[row][column] = c } else { rows[row].append(c) }
                if width == 2 { if column + 1 < rows[row].count { rows[row][column + 1] = "\u{0}" } else { rows[row].append("\u{0}") } }
                column += width
            }
            i += 1
        }
    }

    private mutating func ensureRow() { while rows.count <= row { rows.append([]) } }

    /// The escape sequence starting at `i` (an ESC): a CSI's final character and parameter, nil
    /// for an OSC or a two-character one, and where the text goes on; nil when it is cut off.
    static func escape(_ text: [Character], at i: Int) -> (final: Character?, parameter: String, next: Int)? {
        guard i + 1 < text.count else { return nil }
        switch text[i + 1] {
        case "[":
            var j = i + 2, parameter = ""
            while j < text.count, !("@"..."~").contains(text[j]) { parameter.append(text[j]); j += 1 }
            return j < text.count ? (text[j], parameter, j + 1) : nil
        case "]":
            var j = i + 2
            while j < text.count, text[j] != "\u{07}" { j += 1 }
            return (nil, "", j + 1)
        default:
            return (nil, "", i + 2)
        }
    }
}
