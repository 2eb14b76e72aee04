import Foundation
import SXKApp

// Top-level code runs on the main actor; the shell moves blocking reads to its own thread.
SXKApplication.prepareTransport()
exit(await SXKApplication.main())
