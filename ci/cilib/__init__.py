"""Campaign runner library (ci/campaign, ci/premerge): presets and plans,
the GNU Parallel driver, result scanning, reports and JUnit output."""
