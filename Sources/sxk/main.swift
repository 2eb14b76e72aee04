import Foundation
import SXKApp

// Top-level code runs on the main actor; the shell moves blocking reads to its own thread.
await SXKApplication.runAndExit()
