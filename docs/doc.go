// Package docs holds no code: it is the folder of the project's
// documentation (README.md at the root is the door to it), and its test
// checks that every relative link and #anchor in those files resolves.
package docs
