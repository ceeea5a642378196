package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Prompt bounds: the LLM sees at most this much, whatever the workspace
// stores.
const (
	maxKnowledgeInPrompt = 3
	maxHistoryInPrompt   = 10
	maxEntryChars        = 1500
	maxTurnChars         = 2000
	maxInstructionChars  = 4000
	// HandOffContent is the content that asks for a hand-off from servers
	// without tools.
	HandOffContent = "[HANDOFF]"
	handOffTool    = "hand_off"
)

// LLM answers through an OpenAI-compatible chat-completions API (hosted
// APIs, vLLM, llama.cpp server, Ollama): one call per customer message.
type LLM struct {
	// URL is the API base ("…/v1"); the request goes to URL + "/chat/completions".
	URL    string
	Model  string
	APIKey string
	// Client is the HTTP client; its Timeout bounds a call (nil: 30 s).
	Client *http.Client
}

type chatMessage struct {
	Role      string     `json:"role"`
	Content   *string    `json:"content"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
}

type toolCall struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

type chatRequest struct {
	Model    string        `json:"model,omitempty"`
	Messages []chatMessage `json:"messages"`
	Tools    []any         `json:"tools"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
}

// Respond asks the model. A hand_off tool call or the content [HANDOFF] is a
// hand-off; an error, a timeout or an empty answer is returned as an error
// (the caller hands off).
func (l *LLM) Respond(ctx context.Context, in Input) (Decision, error) {
	body, err := json.Marshal(l.request(in))
	if err != nil {
		return Decision{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(l.URL, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return Decision{}, fmt.Errorf("ai: llm request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if l.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+l.APIKey)
	}
	client := l.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return Decision{}, fmt.Errorf("ai: llm call: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Decision{}, fmt.Errorf("ai: llm answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return Decision{}, fmt.Errorf("ai: llm answered %d", resp.StatusCode)
	}
	var out chatResponse
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 {
		return Decision{}, fmt.Errorf("ai: llm answer is not a chat completion")
	}
	msg := out.Choices[0].Message
	for _, c := range msg.ToolCalls {
		if c.Function.Name == handOffTool {
			return Decision{HandOff: true, Reason: "model called hand_off"}, nil
		}
	}
	content := ""
	if msg.Content != nil {
		content = *msg.Content
	}
	switch strings.TrimSpace(content) {
	case HandOffContent:
		return Decision{HandOff: true, Reason: "model answered [HANDOFF]"}, nil
	case "":
		return Decision{}, fmt.Errorf("ai: llm gave no content")
	}
	return Decision{Reply: content, Reason: "model"}, nil
}

// request is the chat-completions body: the instructions and the best
// knowledge entries as the system message, then the recent conversation,
// each part cut to its bound.
func (l *LLM) request(in Input) chatRequest {
	var sys strings.Builder
	sys.WriteString(clip(in.Instructions, maxInstructionChars))
	sys.WriteString("\n\nAnswer the customer's last message. Use the knowledge below when it applies. " +
		"If you cannot help, or the customer wants a person, call the hand_off tool " +
		"(or answer exactly " + HandOffContent + ").")
	hits := NewIndex(in.Knowledge).Search(in.Message)
	for i, h := range hits {
		if i == maxKnowledgeInPrompt {
			break
		}
		if i == 0 {
			sys.WriteString("\n\nKnowledge:")
		}
		fmt.Fprintf(&sys, "\nQ: %s\nA: %s", clip(h.Doc.Question, maxEntryChars), clip(h.Doc.Answer, maxEntryChars))
	}
	text := sys.String()
	msgs := []chatMessage{{Role: "system", Content: &text}}
	history := in.History
	if len(history) > maxHistoryInPrompt {
		history = history[len(history)-maxHistoryInPrompt:]
	}
	if len(history) == 0 {
		history = []Turn{{Customer: true, Text: in.Message}}
	}
	for _, t := range history {
		role, c := "assistant", clip(t.Text, maxTurnChars)
		if t.Customer {
			role = "user"
		}
		msgs = append(msgs, chatMessage{Role: role, Content: &c})
	}
	tool := map[string]any{"type": "function", "function": map[string]any{
		"name":        handOffTool,
		"description": "Pass the conversation to a human agent instead of answering.",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{
			"reason": map[string]any{"type": "string", "description": "Why a person should take over."}}},
	}}
	return chatRequest{Model: l.Model, Messages: msgs, Tools: []any{tool}}
}

// clip cuts text to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
