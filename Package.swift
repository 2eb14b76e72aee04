// swift-tools-version:6.0
import PackageDescription

// Layers mirror the app (seed 001): Core (JSON, redaction) → Models (payload types, the
// endpoint list) → API (client, transport, endpoint groups) → Session (contexts, stores) → Features (facades) → Shell (line editor,
// specs, parser, completion, rendering) → App (composition root, the sxk commands).
let package = Package(
    name: "sxk",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "sxk", targets: ["sxk"]),
        .executable(name: "sxk-sandbox", targets: ["sxk-sandbox"]),
    ],
    targets: [
        // What the three shims below share: dlopen of the first soname that loads, dlsym into a table.
        .target(name: "CLibraryLoader", linkerSettings: [.linkedLibrary("dl")]),
        // libedit (line editor, history file) and libjq (`--jq`), loaded with dlopen when first used
        // (include/sxk_edit.h, include/sxk_jq.h); Debian's libedit-dev and libjq-dev give the headers.
        .target(name: "CLibedit", dependencies: ["CLibraryLoader"]),
        .target(name: "CJQ", dependencies: ["CLibraryLoader"]),
        // libcurl, the one HTTP engine (http and https), loaded with dlopen on first use
        // (Sources/CCurl/include/sxk_curl.h); Debian's libcurl4-openssl-dev gives the header.
        .target(name: "CCurl", dependencies: ["CLibraryLoader"]),
        // Wrappers for the pseudo-terminal calls Glibc hides behind _GNU_SOURCE (tests only).
        .target(name: "CPTY"),
        .target(name: "SXKCore"),
        // The wire's models and the one endpoint list, shared by the client, the session layer and the sandbox.
        .target(name: "SXKModels", dependencies: ["SXKCore"]),
        .target(name: "SXKAPI", dependencies: ["SXKCore", "SXKModels", "CCurl"]),
        .target(name: "SXKSandbox", dependencies: ["SXKCore", "SXKModels"]),
        .target(name: "SXKSession", dependencies: ["SXKCore", "SXKModels"]),
        .target(name: "SXKFeatures", dependencies: ["SXKCore", "SXKAPI", "SXKSession"]),
        .target(name: "SXKShell", dependencies: ["SXKCore", "CLibedit", "CJQ"]),
        .target(
            name: "SXKApp",
            dependencies: ["SXKCore", "SXKAPI", "SXKSandbox", "SXKSession", "SXKFeatures", "SXKShell"],
            resources: [.embedInCode("Resources/menu-catalog.json")]
        ),
        .executableTarget(name: "sxk", dependencies: ["SXKApp"]),
        .executableTarget(name: "sxk-sandbox", dependencies: ["SXKSandbox"]),

        // Shared by the test targets: the two-spelling test base and the seeded generator.
        .target(name: "SXKTestSupport", dependencies: ["SXKSandbox"], path: "Tests/SXKTestSupport"),
        .testTarget(name: "SXKCoreTests", dependencies: ["SXKCore", "SXKTestSupport"]),
        .testTarget(name: "SXKAPITests", dependencies: ["SXKAPI", "SXKSandbox"]),
        .testTarget(name: "SXKSandboxTests", dependencies: ["SXKSandbox", "SXKCore", "SXKModels"]),
        .testTarget(name: "SXKSessionTests", dependencies: ["SXKSession", "SXKModels", "SXKFeatures", "SXKTestSupport"]),
        .testTarget(name: "SXKFeaturesTests", dependencies: ["SXKFeatures", "SXKSandbox", "SXKTestSupport"]),
        .testTarget(name: "SXKShellTests", dependencies: ["SXKShell"], exclude: ["Golden"]),
        .testTarget(name: "SXKAppTests", dependencies: ["SXKApp", "SXKSandbox", "SXKTestSupport", "sxk", "sxk-sandbox"]),
        .testTarget(name: "SXKInteractiveTests", dependencies: ["CPTY", "sxk", "sxk-sandbox", "SXKSandbox", "SXKCore", "SXKShell", "SXKTestSupport"]),
    ]
)

// Concrete generic types (a `[String: String]`, a continuation) are made through accessors that pass
// their conformances in directly, not from a mangled name that the runtime resolves: resolving one
// looks for each conformance across every conformance record of the static binary, ≈ 0.2-0.3 ms the
// first time apiece, several times in every one-shot's start.
let cTargets: Set = ["CLibraryLoader", "CLibedit", "CJQ", "CCurl", "CPTY"]
for target in package.targets where !cTargets.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"]),
    ]
}
