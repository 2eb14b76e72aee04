import SXKCore
import SXKFeatures

/// The home menu catalog (permission URI → title and group), a data file compiled into the
/// binary so an installed `sxk` needs no resource bundle beside it. Parsed on first use only.
enum MenuCatalogResource {
    static let catalog: MenuCatalog = {
        // The file is part of the build and checked by a test, so a parse failure is a build defect.
        guard let value = try? JSONParser.parse(PackageResources.menu_catalog_json),
            let catalog = try? MenuCatalog(json: value)
        else { return MenuCatalog([]) }
        return catalog
    }()
}
