package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// pki holds the instance's keys, made fresh by each `up` as envtest's TinyCA does: a CA that signs the
// serving certificate (127.0.0.1, ::1, localhost), a second CA whose client certificates the server
// trusts (the user's is in system:masters), and the service-account signing key.
type pki struct {
	dir                         string
	servingCert, servingKey     string
	clientCACert                string
	saKey, saPublic             string
	servingCAPEM                []byte
	clientCertPEM, clientKeyPEM []byte
}

// The user the kubeconfig authenticates as: system:masters passes every RBAC check.
const (
	userName  = "kadmit-admin"
	userGroup = "system:masters"
	validFor  = 7 * 24 * time.Hour
)

type ca struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func writePKI(dir string) (*pki, error) {
	servingCA, err := newCA("kadmit-kube serving CA")
	if err != nil {
		return nil, err
	}
	clientCA, err := newCA("kadmit-kube client CA")
	if err != nil {
		return nil, err
	}
	servingCert, servingKey, err := servingCA.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	if err != nil {
		return nil, err
	}
	clientCert, clientKey, err := clientCA.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: userName, Organization: []string{userGroup}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return nil, err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	saKeyPEM, err := keyPEM(saKey)
	if err != nil {
		return nil, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	p := &pki{
		dir:           dir,
		servingCert:   filepath.Join(dir, "serving.crt"),
		servingKey:    filepath.Join(dir, "serving.key"),
		clientCACert:  filepath.Join(dir, "client-ca.crt"),
		saKey:         filepath.Join(dir, "sa-signer.key"),
		saPublic:      filepath.Join(dir, "sa-signer.pub"),
		servingCAPEM:  servingCA.pem,
		clientCertPEM: clientCert,
		clientKeyPEM:  clientKey,
	}
	files := map[string][]byte{
		"serving-ca.crt": servingCA.pem,
		"serving.crt":    servingCert,
		"serving.key":    servingKey,
		"client-ca.crt":  clientCA.pem,
		"client.crt":     clientCert,
		"client.key":     clientKey,
		"sa-signer.key":  saKeyPEM,
		"sa-signer.pub":  pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPub}),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func newCA(name string) (*ca, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &ca{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// sign makes a key and a certificate for it from tmpl's names and usages.
func (c *ca) sign(tmpl *x509.Certificate) (certPEM, keyPEMBytes []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl.SerialNumber = serial
	tmpl.NotBefore = now.Add(-time.Hour)
	tmpl.NotAfter = now.Add(validFor)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, &key.PublicKey, c.key)
	if err != nil {
		return nil, nil, err
	}
	keyBytes, err := keyPEM(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyBytes, nil
}

func keyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// writeKubeconfig writes one cluster, user and context, with the keys inline (no paths to resolve).
func writeKubeconfig(path, server string, p *pki) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kadmit-kube"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: p.servingCAPEM}
	cfg.AuthInfos[userName] = &clientcmdapi.AuthInfo{ClientCertificateData: p.clientCertPEM, ClientKeyData: p.clientKeyPEM}
	cfg.Contexts["kadmit-kube"] = &clientcmdapi.Context{Cluster: "kadmit-kube", AuthInfo: userName, Namespace: "default"}
	cfg.CurrentContext = "kadmit-kube"
	return clientcmd.WriteToFile(*cfg, path)
}
