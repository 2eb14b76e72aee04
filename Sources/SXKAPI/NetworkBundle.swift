/// The network dependencies of one shell (seed 001's NetworkBundle): the client and the
/// Account / Commerce / Operation groups, all sharing that one client.
public struct NetworkBundle: Sendable {
    public let client: APIClient
    public let account: AccountAPI
    public let commerce: CommerceAPI
    public let operation: OperationAPI

    public init(client: APIClient) {
        self.client = client
        account = AccountAPI(client: client)
        commerce = CommerceAPI(client: client)
        operation = OperationAPI(client: client)
    }

    /// Validates the configuration and builds the client. Reuse `transport` across environment
    /// switches so the shell keeps its connections.
    public init(
        configuration: APIConfiguration, transport: any HTTPTransport, observer: any APIObserver = SilentObserver(),
        tokenProvider: @escaping @Sendable () -> String? = { nil }, heldSecrets: @escaping @Sendable () -> [String] = { [] }
    ) throws(APIError) {
        try configuration.validate()
        self.init(client: APIClient(configuration: configuration, transport: transport, observer: observer,
                                    tokenProvider: tokenProvider, heldSecrets: heldSecrets))
    }

    public var configuration: APIConfiguration { client.configuration }
}
