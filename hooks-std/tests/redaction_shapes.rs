//! Shapes secrets take in commands, files and API payloads, each of which
//! the default redactor once let through: the secret must be gone, and
//! what is around it (the program, the flags, the user name, the host)
//! kept, so a record still says what ran.

use hooks_core::Value;
use hooks_core::json;
use hooks_std::redact::Redactor;

const SECRET: &str = "Qx7pL2vN9sKw";

/// `shape` with its `{}` replaced by [`SECRET`], redacted: the secret must
/// be gone and each of `kept` still there.
#[track_caller]
fn text_shape(shape: &str, kept: &[&str]) {
    let text = shape.replace("{}", SECRET);
    let redacted = Redactor::default().redacted(&text);
    assert!(!redacted.contains(SECRET), "{text:?} -> {redacted:?}");
    for part in kept {
        assert!(
            redacted.contains(part),
            "{part:?} lost: {text:?} -> {redacted:?}"
        );
    }
}

#[track_caller]
fn json_shape(shape: &Value, kept: &[&str]) {
    let value: Value = serde_json::from_str(&shape.to_string().replace("{}", SECRET)).unwrap();
    let redacted = Redactor::default().redact(&value).to_string();
    assert!(!redacted.contains(SECRET), "{value} -> {redacted}");
    for part in kept {
        assert!(
            redacted.contains(part),
            "{part:?} lost: {value} -> {redacted}"
        );
    }
}

#[test]
fn environment_assignments_with_the_program_glued_to_the_name() {
    text_shape(
        "PGPASSWORD={} psql -h db -U app",
        &["PGPASSWORD=", "psql -h db"],
    );
    text_shape("env MYSQLPASSWORD={} run", &["run"]);
    text_shape("docker run -e REDIS_PASSWORD={} redis", &["redis"]);
    text_shape("export GITHUBTOKEN={}", &["export"]);
}

#[test]
fn curl_user_and_cookies() {
    text_shape(
        "curl -u deploy:{} https://api.example.com",
        &["-u deploy:", "https://api.example.com"],
    );
    text_shape("curl --user deploy:{} https://x", &["deploy:"]);
    text_shape("curl -udeploy:{} https://x", &["https://x"]);
    text_shape("curl --proxy-user p:{} https://x", &["https://x"]);
    text_shape("curl -b 'session={}' https://x", &["curl -b", "https://x"]);
    text_shape("curl --cookie \"a=1; sid={}\" https://x", &["https://x"]);
    text_shape(
        "curl -H 'Cookie: theme=dark; sid={}' https://x",
        &["https://x"],
    );
    text_shape("Set-Cookie: sid={}; Path=/; HttpOnly", &["Set-Cookie"]);
    // A cookie file is a path, not a secret.
    assert_eq!(
        Redactor::default().redacted("curl -b cookies.txt https://x"),
        "curl -b cookies.txt https://x"
    );
}

#[test]
fn argv_arrays_carry_the_value_in_the_next_element() {
    json_shape(
        &json!({"command": ["mysql", "--password", "{}", "shop"]}),
        &["mysql", "shop"],
    );
    json_shape(&json!(["psql", "--token", "{}"]), &["psql"]);
    json_shape(
        &json!(["sshpass", "-p", "{}", "ssh", "deploy@h"]),
        &["deploy@h"],
    );
    json_shape(
        &json!(["curl", "-u", "deploy:{}", "https://x"]),
        &["deploy:", "https://x"],
    );
    json_shape(
        &json!(["curl", "-b", "sid={}", "https://x"]),
        &["https://x"],
    );
    json_shape(
        &json!(["docker", "login", "-p", "{}", "registry.example.com"]),
        &["registry.example.com"],
    );
    json_shape(
        &json!(["openssl", "rsa", "-passin", "pass:{}", "-in", "k.pem"]),
        &["k.pem"],
    );
    json_shape(
        &json!(["aws", "configure", "set", "aws_session_token", "{}"]),
        &["aws_session_token"],
    );
}

#[test]
fn name_value_pairs() {
    json_shape(
        &json!({"env_name": "DB_PASSWORD", "env_value": "{}"}),
        &["DB_PASSWORD"],
    );
    json_shape(
        &json!({"env": [{"name": "API_TOKEN", "value": "{}"}, {"name": "PORT", "value": "8080"}]}),
        &["8080"],
    );
    json_shape(
        &json!({"Name": "/prod/db/password", "Value": "{}", "Type": "SecureString"}),
        &["SecureString"],
    );
    json_shape(
        &json!({"headers": [{"key": "X-Api-Key", "value": "{}"}]}),
        &["X-Api-Key"],
    );
    json_shape(
        &json!({"variable": "STRIPE_SECRET", "val": "{}"}),
        &["STRIPE_SECRET"],
    );
    // Not a secret's name: left alone.
    let plain = json!({"name": "PORT", "value": "8080"});
    assert_eq!(Redactor::default().redact(&plain), plain);
}

#[test]
fn azure_connection_strings_and_sas_tokens() {
    text_shape(
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={}==;EndpointSuffix=core.windows.net",
        &["AccountName=acct", "EndpointSuffix=core.windows.net"],
    );
    text_shape(
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={}=",
        &["Endpoint=sb://ns.servicebus.windows.net/"],
    );
    text_shape(
        "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01&sig={}%3D",
        &["sv=2022-11-02", "se=2030-01-01"],
    );
}

#[test]
fn netrc_lines() {
    text_shape(
        "machine api.example.com login deploy password {}",
        &["login deploy", "machine api.example.com"],
    );
    text_shape(
        "machine h\n  login deploy\n  password {}\n",
        &["login deploy"],
    );
    text_shape("default login anonymous password {}", &["anonymous"]);
}

#[test]
fn webhook_urls_hold_their_secret_in_the_path() {
    text_shape(
        "POST https://hooks.slack.com/services/T0A1B2C3/B0D4E5F6/{} ok",
        &["hooks.slack.com", "ok"],
    );
    text_shape(
        "https://api.telegram.org/bot123456789:{}/sendMessage?chat_id=1",
        &["api.telegram.org", "sendMessage"],
    );
    text_shape(
        "https://discord.com/api/webhooks/1234567890/{}",
        &["discord.com"],
    );
    text_shape(
        "https://open.feishu.cn/open-apis/bot/v2/hook/{}",
        &["open.feishu.cn"],
    );
    text_shape(
        "https://open.larksuite.com/open-apis/bot/v2/hook/{}",
        &["open.larksuite.com"],
    );
    text_shape(
        "https://contoso.webhook.office.com/webhookb2/{}@tenant/IncomingWebhook/x/y",
        &["contoso.webhook.office.com"],
    );
}

#[test]
fn passwords_given_to_openssl_docker_and_aws() {
    text_shape(
        "openssl rsa -in k.pem -passin pass:{} -out k2.pem",
        &["-passin pass:", "k2.pem"],
    );
    text_shape(
        "openssl pkcs12 -export -passout 'pass:{}' -out a.p12",
        &["a.p12"],
    );
    text_shape("openssl enc -aes-256-cbc -k {} -in f", &["-in f"]);
    text_shape(
        "docker login -u deploy -p {} registry.example.com",
        &["-u deploy", "registry.example.com"],
    );
    text_shape("podman login --username deploy -p{} quay.io", &["quay.io"]);
    text_shape(
        "aws configure set aws_session_token {} --profile prod",
        &["aws_session_token", "--profile prod"],
    );
    text_shape(
        "aws configure set aws_secret_access_key {}",
        &["aws_secret_access_key"],
    );
    // `-p` is a port or a path elsewhere.
    assert_eq!(
        Redactor::default().redacted("docker run -p 8080:80 nginx && ssh -p 2222 h"),
        "docker run -p 8080:80 nginx && ssh -p 2222 h"
    );
}

#[test]
fn putty_private_keys() {
    text_shape(
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5\nAAAAIBhR\nPrivate-Lines: 1\nAAAAI{}\nPrivate-MAC: 9c2e4f1a\nafter",
        &["after"],
    );
    // Cut short (a truncated dump), still a key.
    text_shape(
        "PuTTY-User-Key-File-2: ssh-rsa\nPrivate-Lines: 14\nAAAA{}",
        &[],
    );
}

#[test]
fn a_token_as_an_object_key_and_in_a_tool_error() {
    json_shape(&json!({"tokens": {"ghp_{}": "org/repo"}}), &["org/repo"]);
    json_shape(&json!({"sk-proj-{}": true}), &[]);
    text_shape(
        "remote: Invalid username or token ghp_{}. Password authentication is not supported.",
        &["Password authentication"],
    );
    text_shape(
        "Error: 401 Unauthorized: invalid api key {} (check the key)",
        &["401 Unauthorized"],
    );
    text_shape(
        "stripe.error.AuthenticationError: Invalid API Key provided: sk_live_{}",
        &["Invalid API Key provided"],
    );
}

#[test]
fn ordinary_commands_and_text_are_left_alone() {
    let redactor = Redactor::default();
    for text in [
        "docker run -p 8080:80 nginx && ssh -p 2222 deploy@h",
        "mkdir -p build && cp -p a b",
        "curl -u deploy https://x",
        "curl -b cookies.txt -c cookies.txt https://x",
        "git config user.name Alice && git config --global core.editor vim",
        "aws configure set region eu-west-1",
        "docker login --password-stdin registry.example.com",
        "openssl req -new -key k.pem -passin env:KEY_PASS -out r.csr",
        "the password is required and the token budget is 4096",
        "reset the api key in settings, then retry",
        "SELECT id FROM tokens WHERE owner = 7",
        "machine learning: login and password screens",
        "https://hooks.slack.com/ and https://api.telegram.org/",
        "max_tokens=512 temperature=0.2",
        "{\"name\": \"PORT\", \"value\": \"8080\"}",
        "Run this? {\"path\": \"/tmp/x\", \"argv\": [\"ls\", \"-p\", \"/tmp\"]}",
    ] {
        assert_eq!(redactor.redacted(text), text);
    }
}
