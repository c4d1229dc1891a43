package mirror

import "strings"

// mapping turns a source key and value into the destination key and value: the directory swap,
// the ignore list and the rules. It is pure, so a full sync and a watch event compute the same thing.
type mapping struct {
	srcDir, dstDir string
	ignore         []string
	rules          []Rule
}

func newMapping(c Config) mapping {
	return mapping{srcDir: c.srcDir, dstDir: c.dstDir, ignore: c.normalisedIgnores, rules: c.Rules}
}

// target returns the destination key and value for a source entry; ok is false when the key is not
// copied (outside the source directory, or ignored). notObject reports a value copied as it is because
// it is not a JSON object.
func (m mapping) target(srcKey string, value []byte) (dstKey string, out []byte, ok, notObject bool) {
	dstKey, ok = m.key(srcKey)
	if !ok {
		return "", nil, false, false
	}
	out, notObject = rewrite(m.rules, srcKey, value)
	return dstKey, out, true, notObject
}

// key maps a source key to its destination key.
func (m mapping) key(srcKey string) (string, bool) {
	if !strings.HasPrefix(srcKey, m.srcDir) || len(srcKey) == len(m.srcDir) {
		return "", false
	}
	for _, p := range m.ignore {
		if underPath(srcKey, p) {
			return "", false
		}
	}
	return m.dstDir + srcKey[len(m.srcDir):], true
}

// overlaps reports whether the two directories contain one another: on one etcd cluster the mirror
// would then copy its own output.
func (m mapping) overlaps() bool {
	return strings.HasPrefix(m.srcDir, m.dstDir) || strings.HasPrefix(m.dstDir, m.srcDir)
}
