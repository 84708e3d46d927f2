// A Node CommonJS script: require("zom"), reads the sample hierarchy at the URL given as its
// argument and prints the result as one line of JSON. (The shared read logic is an ES module:
// it is loaded with import(), zom itself with require.)
const zom = require("zom");

import("../shared/read.js")
  .then(({ readSample }) => readSample(zom, process.argv[2]))
  .then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
  .catch((e) => {
    process.stderr.write(`${e?.stack ?? e}\n`);
    process.exitCode = 1;
  });
