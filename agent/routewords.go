package agent

// Place names the route in people's words, for everything people read
// (the bot's messages, the no-answer summary): where the answer was looked
// for, not the machinery behind it.
func (r Route) Place() string {
	switch r {
	case RouteVector:
		return "company documents"
	case RouteGraph:
		return "the knowledge graph"
	case RouteWeb:
		return "the web"
	case RouteDirect:
		return "general knowledge"
	}
	return string(r)
}
