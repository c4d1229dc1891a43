package source

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// manifestObjects are the decoded objects of a manifest, in the same indexers informers use.
type manifestObjects struct {
	services, ingresses, nodes, pods, slices cache.Indexer
	problems                                 problemList
	namespace                                string // --namespace: objects elsewhere are left out
	// others are the objects of kinds the core kinds do not read, for the static kinds.
	others []manifestOther
	// decoder knows the kinds of kube.NewScheme: core/v1, networking/v1, discovery/v1 hold every kind
	// the core kinds read; any other kind is not registered and is kept for the static kinds (which
	// read it as unstructured) or becomes a problem naming the object and its kind.
	decoder runtime.Decoder
}

func newManifestObjects(namespace string) *manifestObjects {
	nsIndex := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	return &manifestObjects{
		services:  cache.NewIndexer(cache.MetaNamespaceKeyFunc, nsIndex),
		ingresses: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nsIndex),
		nodes:     cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		pods:      cache.NewIndexer(cache.MetaNamespaceKeyFunc, nsIndex),
		slices:    cache.NewIndexer(cache.MetaNamespaceKeyFunc, endpointSliceIndexers()),
		namespace: namespace,
		decoder:   serializer.NewCodecFactory(kube.NewScheme()).UniversalDeserializer(),
	}
}

// manifestFiles returns path itself, or the *.yaml, *.yml and *.json files of a directory (not its
// subdirectories), sorted.
func manifestFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// readFile decodes every document of one file. Only unreadable files and YAML syntax errors are
// errors; objects that cannot be used are Problems.
func (m *manifestObjects) readFile(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	for doc := 1; ; doc++ {
		data, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", file, doc, err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		js, err := utilyaml.ToJSON(data)
		if err != nil {
			return fmt.Errorf("%s: document %d: YAML syntax: %w", file, doc, err)
		}
		if t := bytes.TrimSpace(js); bytes.Equal(t, []byte("null")) || len(t) == 0 {
			continue // a document holding only comments
		}
		m.decode(js, fmt.Sprintf("%s, document %d", file, doc))
	}
}

// decode adds one JSON object (or list of objects) to the indexers.
func (m *manifestObjects) decode(js []byte, where string) {
	obj, _, err := m.decoder.Decode(js, nil, nil)
	if err != nil {
		ref, typ := peekObject(js)
		if runtime.IsNotRegisteredError(err) {
			m.keepOther(js, nil, where) // a static kind may read it, or it becomes a problem
			return
		}
		if runtime.IsMissingKind(err) || runtime.IsMissingVersion(err) {
			m.problems.add(ref, "kind", typ, "not a kind zonekeeper reads ("+where+")")
			return
		}
		// A field of the wrong type: the decoder's message names the field path.
		m.problems.add(ref, "(object)", typ, err.Error()+" ("+where+")")
		return
	}
	if meta.IsListType(obj) {
		items, err := meta.ExtractList(obj)
		if err != nil {
			m.problems.add(endpoint.ObjectRef{Kind: "List"}, "items", "", err.Error()+" ("+where+")")
			return
		}
		for i, item := range items {
			itemWhere := fmt.Sprintf("%s, items[%d]", where, i)
			if u, ok := item.(*runtime.Unknown); ok {
				m.decode(u.Raw, itemWhere)
				continue
			}
			m.add(item, js, itemWhere)
		}
		return
	}
	m.add(obj, js, where)
}

// add files a typed object into its indexer.
func (m *manifestObjects) add(obj runtime.Object, js []byte, where string) {
	var idx cache.Indexer
	var om metav1Object
	switch o := obj.(type) {
	case *corev1.Service:
		idx, om = m.services, o
	case *networkingv1.Ingress:
		idx, om = m.ingresses, o
	case *corev1.Pod:
		idx, om = m.pods, o
	case *discoveryv1.EndpointSlice:
		idx, om = m.slices, o
	case *corev1.Node:
		m.put(m.nodes, o, where)
		return
	default:
		m.keepOther(js, obj, where)
		return
	}
	if om.GetNamespace() == "" {
		om.SetNamespace("default") // as kubectl apply would
	}
	if m.namespace != "" && om.GetNamespace() != m.namespace {
		return
	}
	m.put(idx, obj, where)
}

type metav1Object interface {
	GetNamespace() string
	SetNamespace(string)
	GetName() string
}

func (m *manifestObjects) put(idx cache.Indexer, obj runtime.Object, where string) {
	t, _ := trimObject(obj)
	key, err := cache.MetaNamespaceKeyFunc(t)
	if err != nil {
		return
	}
	if _, exists, _ := idx.GetByKey(key); exists {
		kind := fmt.Sprintf("%T", obj)
		kind = kind[strings.LastIndex(kind, ".")+1:]
		ns, name, _ := cache.SplitMetaNamespaceKey(key)
		m.problems.add(endpoint.ObjectRef{Kind: kind, Namespace: ns, Name: name}, "metadata.name", name,
			"defined more than once; the last definition is used ("+where+")")
	}
	_ = idx.Add(t)
}

// peekObject reads the identity of an object the scheme could not decode, for its Problem.
func peekObject(js []byte) (endpoint.ObjectRef, string) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(js, &head)
	return endpoint.ObjectRef{Kind: head.Kind, Namespace: head.Metadata.Namespace, Name: head.Metadata.Name},
		head.APIVersion + "/" + head.Kind
}
