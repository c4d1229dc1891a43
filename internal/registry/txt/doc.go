// Package txt is the TXT registry: it records who owns each DNS record in a TXT record beside it, in
// external-dns's format byte for byte, so zonekeeper and external-dns can take over each other's zones.
//
// # Format
//
// For a record `nginx.example.com A` owned by "cluster-a" the registry writes
//
//	a-nginx.example.com TXT "heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/default/nginx"
//
// The name comes from Mapper (prefix, suffix, `%{record_type}`, wildcard replacement); the value from
// the record's labels, optionally AES-256-GCM encrypted. Legacy TXTs (same name as the record, no type)
// are read but never written.
//
// # Cache
//
// The registry keeps the provider's last listing in memory, raw (records and TXTs as the provider holds
// them), and folds ownership into labels each time records are handed out. Keeping it raw is what makes
// write-through exact: ApplyChanges patches in exactly the changes the provider accepted, record and TXT
// separately, so a record whose TXT was rejected shows up unowned, as it would after a fresh listing.
//
//   - Records lists the provider when the cache is missing, invalidated, or older than
//     Config.CacheInterval (0, the default, lists every time, as external-dns does without
//     --txt-cache-interval), then returns the folded view.
//   - SharedRecordsWithGeneration is Records without the copies, for a caller that only reads (a full
//     plan): the memo's own endpoints, which the registry never modifies once handed out. The memo is
//     laid out again in Records order whenever it is resorted, so reading it in that order is as fast
//     as reading fresh copies.
//   - RecordsNamed reads the records at some names from the cache, for an event's plan of those names.
//     A cache older than Config.CacheInterval answers when the provider still reports the listing
//     version it was tied to (what a listing would keep); otherwise the caller plans everything.
//   - CachedRecords never touches the provider: it returns the folded view of the cache and whether one
//     is loaded, whatever its age. A controller can plan a per-object reconcile from it and keep full
//     listings for the periodic resync.
//   - Invalidate drops the cache; the next Records or ApplyChanges lists the provider again. ApplyChanges
//     also invalidates after a provider error that is not an *provider.ApplyError, since then nobody
//     knows what was applied.
//   - ApplyChanges needs the cache (to know which TXTs exist and their exact values, for skip-create and
//     delete-by-value), so it lists the provider first when none is loaded.
//
// The cache can drift from the provider when something else edits the zone or the provider normalises
// what it stores (a default TTL, say); a periodic Invalidate bounds that.
package txt
