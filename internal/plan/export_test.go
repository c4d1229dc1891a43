package plan

// CalculateInParts is Calculate reading the input and planning the rows in the given number of parts
// at once, whatever the input's size and the processors, so that the tests can compare it with one part.
func CalculateInParts(in Input, parts int) Result { return calculate(in, parts) }
