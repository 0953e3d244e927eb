// Scores a cache-tests results file the way the suite's own pages do: with the suite's
// determineTestResult (test-engine/lib/results.mjs), on the tests that apply to a private (browser)
// cache (no browser_skip, no cdn_only). Prints required and optimal passed/total, the same figures
// for the suite's published browser results, the figures per suite, and one line per required or
// optimal test that did not pass (CACHE_TESTS_SHOW_CHECKS=1 also lists the checks answered no).
//
// usage: node Scripts/cache-tests-score.mjs SUITE_DIR DEFINITIONS.json RESULTS.json
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const [suiteDir, definitionsPath, resultsPath] = process.argv.slice(2)
if (!suiteDir || !definitionsPath || !resultsPath) {
  console.error('usage: node cache-tests-score.mjs SUITE_DIR DEFINITIONS.json RESULTS.json')
  process.exit(2)
}
const { determineTestResult, resultTypes } = await import(
  pathToFileURL(path.resolve(suiteDir, 'test-engine/lib/results.mjs')).href)
const suites = JSON.parse(fs.readFileSync(definitionsPath, 'utf8'))
const applicable = suites.flatMap(suite => suite.tests.map(test => ({ suite, test })))
  .filter(({ test }) => test.browser_skip !== true && test.cdn_only !== true)
const kindOf = test => test.kind ?? 'required'
const nameOf = type => Object.keys(resultTypes).find(key => resultTypes[key] === type) ?? '?'

/** Passed and total counts per kind, and the tests that did not pass. */
function score (results) {
  const counts = { required: [0, 0], optimal: [0, 0], check: [0, 0] }
  const failing = []
  for (const { suite, test } of applicable) {
    const kind = kindOf(test)
    if (!(kind in counts)) continue
    const type = determineTestResult(suites, test.id, results)
    counts[kind][1] += 1
    if (type === resultTypes.pass || type === resultTypes.yes) {
      counts[kind][0] += 1
    } else {
      failing.push({ suite, test, type, result: results[test.id] })
    }
  }
  return { counts, failing }
}

const format = ([passed, total]) => `${passed}/${total}`
const ours = score(JSON.parse(fs.readFileSync(resultsPath, 'utf8')))
console.log(`NetLayer: required ${format(ours.counts.required)}, optional (optimal) ${format(ours.counts.optimal)}` +
  `, checks yes ${format(ours.counts.check)}`)

const published = path.resolve(suiteDir, 'results')
for (const [file, name] of [['chrome.json', 'Chrome'], ['safari.json', 'Safari'], ['firefox.json', 'Firefox']]) {
  const file_ = path.join(published, file)
  if (!fs.existsSync(file_)) continue
  const theirs = score(JSON.parse(fs.readFileSync(file_, 'utf8')))
  console.log(`${name} (published): required ${format(theirs.counts.required)}, optional (optimal) ${format(theirs.counts.optimal)}`)
}

/** One line for a test that did not pass: its kind, its score, its suite and id, and why. */
function line ({ suite, test, type, result }) {
  const detail = result === undefined
    ? 'untested'
    : (result === true ? 'passed, but a dependency did not' : `${result[0]}: ${result[1]}`)
  return `  ${kindOf(test).padEnd(8)} ${nameOf(type).padEnd(15)} [${suite.id}] ${test.id}: ${detail}`
}

// Per suite of the definitions: required and optimal passed/total.
console.log('')
console.log('By suite (required, optimal passed/total):')
const notPassed = new Set(ours.failing.map(({ test }) => test.id))
for (const suite of suites) {
  const tally = { required: [0, 0], optimal: [0, 0] }
  for (const { suite: owner, test } of applicable) {
    if (owner !== suite || !(kindOf(test) in tally)) continue
    tally[kindOf(test)][1] += 1
    if (!notPassed.has(test.id)) tally[kindOf(test)][0] += 1
  }
  if (tally.required[1] + tally.optimal[1] === 0) continue
  console.log(`  ${suite.id.padEnd(22)} required ${format(tally.required).padStart(5)}  optimal ${format(tally.optimal).padStart(5)}`)
}

const graded = ours.failing.filter(({ test }) => kindOf(test) !== 'check')
console.log('')
console.log(`Required and optimal tests not passed (${graded.length}):`)
graded.forEach(failure => console.log(line(failure)))
if (process.env.CACHE_TESTS_SHOW_CHECKS === '1') {
  const checks = ours.failing.filter(({ test }) => kindOf(test) === 'check')
  console.log('')
  console.log(`Checks answered no (${checks.length}):`)
  checks.forEach(failure => console.log(line(failure)))
}

// A floor, for CI: CACHE_TESTS_MIN_REQUIRED / CACHE_TESTS_MIN_OPTIMAL (unset: no floor). A score
// below it exits 1, so a change that makes the cache worse is red.
for (const [kind, variable] of [['required', 'CACHE_TESTS_MIN_REQUIRED'], ['optimal', 'CACHE_TESTS_MIN_OPTIMAL']]) {
  const floor = process.env[variable]
  if (floor !== undefined && ours.counts[kind][0] < Number(floor)) {
    console.log(`${kind}: ${ours.counts[kind][0]} passed, below the floor of ${floor} (${variable})`)
    process.exitCode = 1
  }
}
