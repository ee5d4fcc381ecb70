module tb;
    reg         clk = 1'b0;
    reg         rst, in_valid;
    reg  [31:0] a, b;
    wire [31:0] sum;
    wire        cout, out_valid;
    reg  [32:0] s1, s2;     // model: full result after one and two edges
    reg         v1, v2;
    integer errors, samples, cyc, seed;

    pipe_add32 dut (.clk(clk), .rst(rst), .in_valid(in_valid), .a(a), .b(b),
                    .sum(sum), .cout(cout), .out_valid(out_valid));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 3232;
        rst = 1'b1; in_valid = 0; a = 0; b = 0; {s1, s2, v1, v2} = 68'bx;
        for (cyc = 0; cyc < 800; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) {s1, s2, v1, v2} = 68'd0;
            else begin
                s2 = s1; v2 = v1;
                s1 = {1'b0, a} + {1'b0, b};
                v1 = in_valid;
            end
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 500);
            in_valid = ($random(seed) % 3 != 0);
            a = $random(seed);
            b = $random(seed);
            if (cyc % 10 == 3) b = 32'h0000FFFF - a[15:0];          // low half all ones
            if (cyc % 10 == 4) begin a = 32'hFFFF8000; b = 32'h00008000; end  // carry ripples through the halves
            #1;
            samples = samples + 1;
            if ({cout, sum} !== s2) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal={cout,sum} expected=%h got=%h", $time, s2, {cout, sum});
            end
            if (out_valid !== v2) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=out_valid expected=%h got=%h", $time, v2, out_valid);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
