// zarrita's src/errors.js, as the tests import it: zom/zarrita's errors.
export {
  CodecPipelineError,
  InvalidMetadataError,
  InvalidSelectionError,
  NotFoundError,
  UnknownCodecError,
  UnsupportedError,
  isZarritaError,
} from "zom/zarrita";
