package route53emu

import (
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

const stsNS = "https://sts.amazonaws.com/doc/2011-06-15/"

// stsTokenPrefix marks session tokens issued by this emulator.
const stsTokenPrefix = "ZKEMU"

// STSOptions configure the STS endpoint served at POST /.
type STSOptions struct {
	// Audience is the required "aud" claim of web identity tokens; default
	// "sts.amazonaws.com", what EKS projects for IRSA.
	Audience string
	// Issuer, when set, is the required "iss" claim.
	Issuer string
	// AllowedSubjects, when not empty, lists the "sub" claims (e.g.
	// "system:serviceaccount:kube-system:external-dns") that may assume roles.
	AllowedSubjects []string
}

// stsSession is a set of temporary credentials the emulator issued.
type stsSession struct {
	accessKey, secret, sessionToken  string
	account, roleARN, assumedRoleARN string
	subject                          string
	expiration                       time.Time
}

var roleARNPattern = regexp.MustCompile(`^arn:aws[a-z-]*:iam::(\d{12}):role/(?:[\w+=,.@/-]+/)?([\w+=,.@-]{1,64})$`)

type (
	stsCredentialsXML struct {
		AccessKeyID     string `xml:"AccessKeyId"`
		SecretAccessKey string `xml:"SecretAccessKey"`
		SessionToken    string `xml:"SessionToken"`
		Expiration      string `xml:"Expiration"`
	}
	assumedRoleUserXML struct {
		Arn           string `xml:"Arn"`
		AssumedRoleID string `xml:"AssumedRoleId"`
	}
	stsResult struct {
		SubjectFromWebIdentityToken string             `xml:"SubjectFromWebIdentityToken,omitempty"`
		Audience                    string             `xml:"Audience,omitempty"`
		AssumedRoleUser             assumedRoleUserXML `xml:"AssumedRoleUser"`
		Credentials                 stsCredentialsXML  `xml:"Credentials"`
		Provider                    string             `xml:"Provider,omitempty"`
	}
	responseMetadataXML struct {
		RequestID string `xml:"RequestId"`
	}
	assumeRoleWithWebIdentityResponse struct {
		XMLName  xml.Name            `xml:"AssumeRoleWithWebIdentityResponse"`
		Xmlns    string              `xml:"xmlns,attr"`
		Result   stsResult           `xml:"AssumeRoleWithWebIdentityResult"`
		Metadata responseMetadataXML `xml:"ResponseMetadata"`
	}
	assumeRoleResponse struct {
		XMLName  xml.Name            `xml:"AssumeRoleResponse"`
		Xmlns    string              `xml:"xmlns,attr"`
		Result   stsResult           `xml:"AssumeRoleResult"`
		Metadata responseMetadataXML `xml:"ResponseMetadata"`
	}
	getCallerIdentityResponse struct {
		XMLName xml.Name `xml:"GetCallerIdentityResponse"`
		Xmlns   string   `xml:"xmlns,attr"`
		Result  struct {
			Arn     string `xml:"Arn"`
			UserID  string `xml:"UserId"`
			Account string `xml:"Account"`
		} `xml:"GetCallerIdentityResult"`
		Metadata responseMetadataXML `xml:"ResponseMetadata"`
	}
)

// stsWebIdentityOp is AssumeRoleWithWebIdentity as the call log and faults
// name it; msgWebIdentityDenied is STS's refusal of it, which names no user
// because the call is not signed.
const (
	stsWebIdentityOp     = "sts:AssumeRoleWithWebIdentity"
	msgWebIdentityDenied = "Not authorized to perform sts:AssumeRoleWithWebIdentity"
)

// serveSTS handles the query-protocol STS actions the SDK's credential
// providers use: AssumeRoleWithWebIdentity (unsigned), AssumeRole and
// GetCallerIdentity (signed).
func (s *Server) serveSTS(w http.ResponseWriter, r *http.Request) {
	requestID := newRequestID()
	w.Header().Set("x-amzn-RequestId", requestID)
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	form, _ := url.ParseQuery(string(body))
	for k, v := range r.URL.Query() {
		if _, ok := form[k]; !ok {
			form[k] = v
		}
	}
	action := form.Get("Action")
	op := "sts:" + action

	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.principalLocked(r)
	var status int
	var resp any
	e := s.fireFaultLocked(func(f *Fault) bool { return f.Operation == op }, op, form.Get("RoleArn"), p)
	if e == nil {
		switch action {
		case "AssumeRoleWithWebIdentity":
			status, resp, e = s.assumeRoleWithWebIdentity(form, requestID)
		case "AssumeRole":
			status, resp, e = s.assumeRole(r, form, p, requestID)
		case "GetCallerIdentity":
			status, resp, e = s.getCallerIdentity(r, p, requestID)
		default:
			e = newErr(400, "InvalidAction", "Could not find operation "+action+" for version "+form.Get("Version"))
		}
	}
	req := request{op: op}
	if e != nil {
		s.record(r, req, requestID, e.Status, e.Code, p.accessKey)
		writeError(w, stsNS, requestID, e)
		return
	}
	s.record(r, req, requestID, status, "", p.accessKey)
	writeXML(w, status, resp)
}

func stsValidation(field string) *apiError {
	return newErr(400, "ValidationError", "1 validation error detected: Value null at '"+field+"' failed to satisfy constraint: Member must not be null")
}

// issueLocked creates temporary credentials for a role session.
func (s *Server) issueLocked(form url.Values, subject string) (stsResult, *apiError) {
	roleARN, session := form.Get("RoleArn"), form.Get("RoleSessionName")
	if roleARN == "" {
		return stsResult{}, stsValidation("roleArn")
	}
	if session == "" {
		return stsResult{}, stsValidation("roleSessionName")
	}
	m := roleARNPattern.FindStringSubmatch(roleARN)
	if m == nil {
		return stsResult{}, newErr(400, "ValidationError", "Request ARN is invalid")
	}
	duration := time.Hour
	if d := form.Get("DurationSeconds"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 900 || n > 43200 {
			return stsResult{}, newErr(400, "ValidationError", "1 validation error detected: Value '"+d+"' at 'durationSeconds' failed to satisfy constraint: Member must have value between 900 and 43200")
		}
		duration = time.Duration(n) * time.Second
	}
	account, role := m[1], m[2]
	roleID := "AROA" + randomString(17, idAlphabet)
	sess := &stsSession{
		accessKey:      "ASIA" + randomString(16, idAlphabet),
		secret:         randomString(40, idAlphabet+"abcdefghijklmnopqrstuvwxyz"),
		sessionToken:   stsTokenPrefix + randomString(120, idAlphabet+"abcdefghijklmnopqrstuvwxyz"),
		account:        account,
		roleARN:        roleARN,
		assumedRoleARN: "arn:aws:sts::" + account + ":assumed-role/" + role + "/" + session,
		subject:        subject,
		expiration:     s.now().Add(duration),
	}
	s.sessions[sess.accessKey] = sess
	return stsResult{
		AssumedRoleUser: assumedRoleUserXML{Arn: sess.assumedRoleARN, AssumedRoleID: roleID + ":" + session},
		Credentials: stsCredentialsXML{AccessKeyID: sess.accessKey, SecretAccessKey: sess.secret,
			SessionToken: sess.sessionToken, Expiration: sess.expiration.UTC().Format(time.RFC3339)},
	}, nil
}

func (s *Server) assumeRoleWithWebIdentity(form url.Values, requestID string) (int, any, *apiError) {
	token := form.Get("WebIdentityToken")
	if token == "" {
		return 0, nil, stsValidation("webIdentityToken")
	}
	claims, err := parseJWTClaims(token)
	if err != nil {
		return 0, nil, newErr(400, "InvalidIdentityToken", "Couldn't parse the web identity token: "+err.Error())
	}
	if !claims.hasAudience(s.opts.STS.Audience) {
		return 0, nil, newErr(400, "InvalidIdentityToken", "Incorrect token audience")
	}
	if s.opts.STS.Issuer != "" && claims.Issuer != s.opts.STS.Issuer {
		return 0, nil, newErr(400, "InvalidIdentityToken", "No OpenIDConnect provider found in your account for "+claims.Issuer)
	}
	if claims.Expiry != 0 && s.now().Unix() >= claims.Expiry {
		return 0, nil, newErr(400, "ExpiredTokenException", "Token is expired")
	}
	if len(s.opts.STS.AllowedSubjects) > 0 && !contains(s.opts.STS.AllowedSubjects, claims.Subject) {
		return 0, nil, newErr(http.StatusForbidden, "AccessDenied", msgWebIdentityDenied)
	}
	res, e := s.issueLocked(form, claims.Subject)
	if e != nil {
		return 0, nil, e
	}
	res.SubjectFromWebIdentityToken = claims.Subject
	res.Audience = s.opts.STS.Audience
	res.Provider = claims.Issuer
	return http.StatusOK, assumeRoleWithWebIdentityResponse{Xmlns: stsNS, Result: res, Metadata: responseMetadataXML{requestID}}, nil
}

func (s *Server) assumeRole(r *http.Request, form url.Values, p principal, requestID string) (int, any, *apiError) {
	if e := s.authenticateLocked(r, p); e != nil {
		return 0, nil, e
	}
	res, e := s.issueLocked(form, "")
	if e != nil {
		return 0, nil, e
	}
	return http.StatusOK, assumeRoleResponse{Xmlns: stsNS, Result: res, Metadata: responseMetadataXML{requestID}}, nil
}

func (s *Server) getCallerIdentity(r *http.Request, p principal, requestID string) (int, any, *apiError) {
	if e := s.authenticateLocked(r, p); e != nil {
		return 0, nil, e
	}
	resp := getCallerIdentityResponse{Xmlns: stsNS, Metadata: responseMetadataXML{requestID}}
	resp.Result.Arn, resp.Result.UserID, resp.Result.Account = p.arn, p.accessKey, p.account
	return http.StatusOK, resp, nil
}

type jwtClaims struct {
	Issuer   string          `json:"iss"`
	Subject  string          `json:"sub"`
	Audience json.RawMessage `json:"aud"`
	Expiry   int64           `json:"exp"`
}

func (c jwtClaims) hasAudience(want string) bool {
	var one string
	if json.Unmarshal(c.Audience, &one) == nil {
		return one == want
	}
	var many []string
	if json.Unmarshal(c.Audience, &many) == nil {
		return contains(many, want)
	}
	return false
}

// parseJWTClaims reads the payload of a compact JWS without verifying the
// signature: the emulator checks claims, not keys.
func parseJWTClaims(token string) (jwtClaims, error) {
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return jwtClaims{}, errString("token is not a compact JWT (header.payload.signature)")
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return jwtClaims{}, err
	}
	var c jwtClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return jwtClaims{}, err
	}
	return c, nil
}

type errString string

func (e errString) Error() string { return string(e) }
