package route53emu

// workingCopy overlays a batch's changes on a zone without touching it: a
// name's sets are copied on first write, and commit swaps the copies in. A
// rejected batch is simply dropped, which makes every batch all-or-nothing.
type workingCopy struct {
	z       *zone
	touched map[string]map[rrKey]*storedSet
}

func newWorkingCopy(z *zone) *workingCopy {
	return &workingCopy{z: z, touched: map[string]map[rrKey]*storedSet{}}
}

// names returns the sets at one name (read-only for the caller).
func (w *workingCopy) names(name string) map[rrKey]*storedSet {
	if m, ok := w.touched[name]; ok {
		return m
	}
	return w.z.sets[name]
}

func (w *workingCopy) get(k rrKey) *storedSet { return w.names(k.Name)[k] }

func (w *workingCopy) writable(name string) map[rrKey]*storedSet {
	if m, ok := w.touched[name]; ok {
		return m
	}
	m := make(map[rrKey]*storedSet, len(w.z.sets[name])+1)
	for k, v := range w.z.sets[name] {
		m[k] = v
	}
	w.touched[name] = m
	return m
}

func (w *workingCopy) put(rs RecordSet) {
	k := keyOf(&rs)
	w.writable(k.Name)[k] = &storedSet{key: k, sort: sortKey(k.Name), set: rs}
}

func (w *workingCopy) del(k rrKey) { delete(w.writable(k.Name), k) }

func (w *workingCopy) commit() {
	for name, m := range w.touched {
		w.z.count += len(m) - len(w.z.sets[name])
		if len(m) == 0 {
			delete(w.z.sets, name)
		} else {
			w.z.sets[name] = m
		}
	}
	if len(w.touched) > 0 {
		w.z.sorted = nil
	}
}
