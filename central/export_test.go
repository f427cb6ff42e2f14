package central

// OpenPooledMode is openPooledMode, for the benchmarks of package
// central_test.
var OpenPooledMode = openPooledMode
