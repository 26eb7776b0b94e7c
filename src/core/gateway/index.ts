/** The gateway as a whole: the one model catalog, routing by it, the model list (E11) in its three formats, and the retry policy. */
export {
  Capability,
  defaultRouteCatalog,
  type EmbeddingModel,
  embeddingModelOf,
  embeddingSizes,
  extendRouteCatalog,
  isKnownModel,
  knownModels,
  type ModelMatch,
  realtimeStyles,
  type RouteCatalog,
  type RouteEntry,
  type RoutingOptions
} from "./Catalog.js"
export {
  decodeModelList,
  MessagesModelList,
  type ModelList,
  type ModelListFormat,
  ModelRecord,
  modelOwnerOf,
  NativeModelList,
  OpenAiModelList
} from "./Models.js"
export * as RetryPolicy from "./RetryPolicy.js"
export { BodyShape, Route, routeFor, routeForCapability } from "./Routing.js"
