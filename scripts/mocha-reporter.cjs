// The spec reporter, closed by the test files that took longest (wall time, hooks included), so that
// what makes `make test` slow is visible in every run's output, CI's included.
'use strict';
const Mocha = require('mocha');
const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_RUN_END } = Mocha.Runner.constants;

const SHOWN = 15;

class SpecWithSlowestFiles extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const spent = new Map();
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent && suite.parent.root) started.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const at = started.get(suite);
      if (at === undefined) return;
      spent.set(suite.file, (spent.get(suite.file) || 0) + Date.now() - at);
    });
    runner.once(EVENT_RUN_END, () => {
      const root = process.cwd() + '/';
      const rows = [...spent].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
      const total = [...spent.values()].reduce((a, b) => a + b, 0);
      Mocha.reporters.Base.consoleLog(`  slowest test files (of ${Math.round(total / 1000)} s in files):`);
      for (const [file, ms] of rows)
        Mocha.reporters.Base.consoleLog(
          `  ${String(Math.round(ms / 1000)).padStart(5)} s  ${file.replace(root, '')}`,
        );
      Mocha.reporters.Base.consoleLog();
    });
  }
}

module.exports = SpecWithSlowestFiles;
