package emuproxy

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
)

// GoogleTokenURI is Google's own OAuth2 token endpoint, which a key file names when the SDK is to
// reach the emulator through the proxy.
const GoogleTokenURI = "https://oauth2.googleapis.com/token"

// WriteGoogleServiceAccountKey writes a service-account key file (GOOGLE_APPLICATION_CREDENTIALS) with
// a fresh RSA key, for project, whose token_uri is tokenURI: an emulator's /token, or GoogleTokenURI
// behind the proxy. The key signs the SDK's token request; emulators do not check the signature.
func WriteGoogleServiceAccountKey(path, tokenURI, project string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": project, "private_key_id": "throwaway",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "zonekeeper-test@" + project + ".iam.gserviceaccount.com", "client_id": "1",
		"token_uri": tokenURI,
	}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
