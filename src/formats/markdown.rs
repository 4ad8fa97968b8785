//! Small markdown helpers shared by the markdown transcript formats (SpecStory, and
//! the OpenAI-style lists whose assistant text carries a ```bash block): code fences
//! and the shell languages whose fenced blocks are commands.

/// An opening code fence: its character, length and info string (`bash`, `diff`,
/// `typescript:src/x.ts`). Up to three spaces of indentation, as CommonMark allows.
pub fn fence_open(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = t.chars().take_while(|c| *c == ch).count();
    if len < 3 {
        return None;
    }
    let info = t[len..].trim();
    if ch == '`' && info.contains('`') {
        return None;
    }
    Some((ch, len, info))
}

/// Whether `line` closes a fence opened with `len` times `ch`.
pub fn fence_closes(line: &str, ch: char, len: usize) -> bool {
    let t = line.trim();
    t.len() >= len && t.chars().all(|c| c == ch)
}

/// An open code fence. Transcript writers paste tool output into fences without
/// escaping it, so output that itself holds a fenced block (```markdown … ```) would
/// close the outer fence early; an opener with an info string inside the fence is
/// therefore taken as a nested block whose bare closer does not end the outer one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpenFence {
    pub ch: char,
    pub len: usize,
    nested: usize,
}

impl OpenFence {
    pub fn open(line: &str) -> Option<OpenFence> {
        fence_open(line).map(|(ch, len, _)| OpenFence { ch, len, nested: 0 })
    }

    /// Feed a line inside the fence; true when it closes the fence.
    pub fn closed_by(&mut self, line: &str) -> bool {
        if fence_closes(line, self.ch, self.len) {
            if self.nested == 0 {
                return true;
            }
            self.nested -= 1;
            return false;
        }
        if let Some((ch, len, info)) = fence_open(line)
            && ch == self.ch
            && len == self.len
            && !info.is_empty()
        {
            self.nested += 1;
        }
        false
    }
}

/// Info strings of fenced blocks that hold a shell command.
pub fn is_shell_language(info: &str) -> bool {
    let lang = info.split([' ', ':', '{']).next().unwrap_or("").to_ascii_lowercase();
    matches!(
        lang.as_str(),
        "bash" | "sh" | "shell" | "zsh" | "console" | "shellscript" | "powershell" | "ps1" | "cmd" | "fish"
    )
}

/// A fenced block found in a piece of text.
#[derive(Debug, Clone, PartialEq)]
pub struct Fenced {
    pub info: String,
    pub content: String,
}

/// Every fenced block in `text`, in order (an unclosed block runs to the end).
pub fn fenced_blocks(text: &str) -> Vec<Fenced> {
    let mut out = Vec::new();
    let mut open: Option<(OpenFence, String, Vec<&str>)> = None;
    for line in text.lines() {
        match open.as_mut() {
            Some((fence, _, lines)) => {
                if fence.closed_by(line) {
                    if let Some((_, info, lines)) = open.take() {
                        out.push(Fenced { info, content: lines.join("\n") });
                    }
                } else {
                    lines.push(line);
                }
            }
            None => {
                if let (Some(fence), Some((_, _, info))) = (OpenFence::open(line), fence_open(line)) {
                    open = Some((fence, info.to_string(), Vec::new()));
                }
            }
        }
    }
    if let Some((_, info, lines)) = open {
        out.push(Fenced { info, content: lines.join("\n") });
    }
    out
}

/// "Exit code: N" (Codex shell), "Process exited with code N" (unified exec) or
/// "Exit code N" (Claude Code Bash) near the top of a tool's output.
pub fn exit_code_header(s: &str) -> Option<i32> {
    for line in s.lines().take(6) {
        let line = line.trim();
        let rest = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "))
            .or_else(|| line.strip_prefix("Exit code "));
        if let Some(rest) = rest {
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
            return digits.parse().ok();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences() {
        assert_eq!(fence_open("```bash"), Some(('`', 3, "bash")));
        assert_eq!(fence_open("````"), Some(('`', 4, "")));
        assert_eq!(fence_open("``x``"), None);
        assert_eq!(fence_open("    ```"), None);
        assert!(fence_closes("````", '`', 3));
        assert!(!fence_closes("``", '`', 3));
        assert!(is_shell_language("bash"));
        assert!(!is_shell_language("diff"));
        let blocks = fenced_blocks("text\n```bash\nls -la\n```\n\n```\nout\n```\n");
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].content, "ls -la");
        assert_eq!(blocks[1].info, "");
        // Unescaped output holding a fenced block of its own.
        let blocks = fenced_blocks("```\n# doc\n```markdown\nx\n```\ntail\n```\nafter\n");
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].content, "# doc\n```markdown\nx\n```\ntail");
    }

    #[test]
    fn exit_codes() {
        assert_eq!(exit_code_header("Exit code: 2\nWall time: 1s"), Some(2));
        assert_eq!(exit_code_header("Process exited with code 0"), Some(0));
        assert_eq!(exit_code_header("Exit code 137\nKilled"), Some(137));
        assert_eq!(exit_code_header("all good"), None);
    }
}
