/** Asynchronous video (E1–E3): the catalog of video models, each family's body, delta marker flags, task records and the polling rule. */
// Named, so what only the builders and the poller use (the synchronous `…Result` forms, the field
// readers, the poll gap) stays internal.
export {
  MarkerFlags,
  type MarkerFlagName,
  markerFrameRates,
  markerRatios,
  markerResolutions,
  mergeMarkerFlags,
  parseMarkerFlags,
  renderMarkerFlags
} from "./MarkerFlags.js"
export { checkPollSettings, pollingRule, type PollSettings } from "./PollingRule.js"
export {
  AlphaBody,
  alphaSizes,
  BetaBody,
  betaPersonGeneration,
  buildAlphaBody,
  buildBetaBody,
  buildDeltaBody,
  buildGammaBody,
  buildVideoBody,
  type BuildVideoBodyOptions,
  DeltaBody,
  DeltaContentItem,
  deltaImageRoles,
  DeltaImageItem,
  DeltaTextItem,
  GammaBody,
  gammaMaxSeed,
  gammaSizes,
  videoAspectRatios,
  VideoBody,
  videoBodySchemas,
  videoFamilyFields,
  videoGenericFields,
  videoModeFields,
  type VideoRequest,
  videoResolutions
} from "./VideoBody.js"
export {
  defaultVideoCatalog,
  lookupVideoModel,
  makeVideoCatalog,
  VideoAudio,
  VideoCatalog,
  VideoFamily,
  videoFamilyDefaults,
  videoFamilyOf,
  VideoMode,
  type VideoModel,
  type VideoModelEntry,
  VideoModelLimits,
  videoModelIds,
  videoModels,
  withVideoModels
} from "./VideoCatalog.js"
export * from "./VideoTask.js"
