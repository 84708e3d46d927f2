// zarrita's src/errors.js, as the tests import it: zom/zarrita's errors.
export {
  CodecPipelineError,
  InvalidMetadataError,
  InvalidSelectionError,
  isZarritaError,
  NotFoundError,
  UnknownCodecError,
  UnsupportedError,
} from "zom/zarrita";
