package v1

// The deep copies controller-gen's deep-copy generator cannot write: of
// types holding arrays, and of a struct with a blank field.

// DeepCopyInto copies s into out.
func (s *Slots) DeepCopyInto(out *Slots) {
	for i := range s {
		s[i].DeepCopyInto(&out[i])
	}
}

// DeepCopyInto copies s into out.
func (s *Sched) DeepCopyInto(out *Sched) {
	out.Owner, out.Days = s.Owner, s.Days
	for i := range s.Windows {
		s.Windows[i].DeepCopyInto(&out.Windows[i])
	}
}

// DeepCopyInto copies p into out (the blank field is not copied: it cannot
// be read).
func (p *Private) DeepCopyInto(out *Private) {
	out.Value = p.Value
	out.notes = append([]string(nil), p.notes...)
	if p.notes == nil {
		out.notes = nil
	}
}

// DeepCopyInto copies p into out: the Levels it may hold are values or
// pointers to values without references.
func (p *Probed) DeepCopyInto(out *Probed) {
	switch v := p.Probe.(type) {
	case *Level:
		if v != nil {
			c := *v
			out.Probe = &c
			return
		}
	}
	out.Probe = p.Probe
}
