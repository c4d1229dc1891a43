package cloudflareemu

// Cloudflare error codes the emulator answers with. The codes marked
// "observed" are the ones Cloudflare is documented or widely reported to
// return for that condition; the others are the emulator's choice within the
// DNS 9xxx range and are listed in README.md so nobody mistakes them for
// Cloudflare's.
const (
	CodeNoRoute            = 7000  // observed: "No route for that URI"
	CodeCouldNotRoute      = 7003  // observed: "Could not route to …, perhaps your object identifier is invalid?"
	CodeMethodNotAllowed   = 10405 // emulator's choice
	CodeRateLimited        = 10000 // observed: 429 "Rate limited. Please wait and consider throttling your request speed"
	CodeAuthError          = 10000 // observed: 401 "Authentication error"
	CodeMissingAuth        = 9106  // observed: "Missing X-Auth-Key, X-Auth-Email or Authorization headers"
	CodeInvalidJSON        = 9207  // emulator's choice: body is not the JSON object expected
	CodeInternal           = 10001 // emulator's choice for injected 5xx
	CodeProxyNotAllowed    = 9004  // observed: "This kind of record cannot be proxied"
	CodeInvalidContentA    = 9005  // observed: "Content for A record must be a valid IPv4 address."
	CodeInvalidContentAAAA = 9006  // AAAA content not an IPv6 address
	CodeInvalidContent     = 9007  // content invalid for the type (CNAME, NS, MX, …)
	CodeInvalidName        = 9008  // record name invalid
	CodeInvalidType        = 9009  // unsupported or unknown record type
	CodeInvalidTTL         = 9021  // observed: "Invalid TTL. Must be between 60 and 86400 seconds, or 1 for Automatic."
	CodeInvalidPriority    = 9010  // MX/SRV priority missing or out of range
	CodeInvalidData        = 9011  // data block invalid (SRV, CAA, TLSA)
	CodeInvalidComment     = 9012  // comment too long for the plan
	CodeInvalidTags        = 9013  // tags not "name:value" or too many
	CodeInvalidSettings    = 9014  // settings key unknown for the type
	CodeUnknownField       = 9015  // a body field the emulator does not know
	CodeInvalidQuery       = 9016  // a query parameter the emulator does not know, or a bad value
	CodeRecordNotFound     = 81044 // observed: "Record does not exist."
	CodeCNAMEConflict      = 81053 // observed: "An A, AAAA, or CNAME record with that host already exists."
	CodeCNAMEExists        = 81054 // observed: "A CNAME record with that host already exists."
	CodeRecordExists       = 81057 // observed: "Record already exists."
	CodeIdenticalRecord    = 81058 // observed: "An identical record already exists."
	CodeBatchFault         = 81099 // emulator's choice: failing-batch fault without an explicit code
	CodeHostnameExists     = 1406  // custom hostname already exists (emulator's choice)
	CodeHostnameNotFound   = 1436  // custom/regional hostname not found (emulator's choice)
	CodeHostnameInvalid    = 1411  // custom/regional hostname invalid (emulator's choice)
)

const (
	msgRateLimited = "Rate limited. Please wait and consider throttling your request speed"
	msgNoRoute     = "No route for that URI"
	msgNotFound    = "Record does not exist."
	msgIdentical   = "An identical record already exists."
	msgInvalidTTL  = "Invalid TTL. Must be between 60 and 86400 seconds, or 1 for Automatic."
)
