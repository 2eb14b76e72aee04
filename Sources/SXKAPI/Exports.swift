// The client's callers use the payload models with it: importing SXKAPI brings SXKModels along,
// so the layers above need no second import for the types the client returns.
@_exported import SXKModels
