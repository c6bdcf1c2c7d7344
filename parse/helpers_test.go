package parse

import "errors"

func asSyntax(err error, se **SyntaxError) bool { return errors.As(err, se) }
